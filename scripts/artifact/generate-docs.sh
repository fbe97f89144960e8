#!/usr/bin/env bash
# Generates what ferry says about itself, for the artifact and the Debian package, by running the staged ferry on the
# Node it ships with:
#   OUT/completion/ferry.bash   `ferry completion bash` (bash-completion's completions/ferry)
#   OUT/completion/_ferry       `ferry completion zsh` made an autoloadable zsh completion function (#compdef)
#   OUT/man/ferry.1             ferry(1) by help2man from `ferry --help`, with every command's own --help appended
#
#   scripts/artifact/generate-docs.sh NODE FERRY_BIN VERSION OUT
#
# help2man (Debian's) rather than our own roff writer: it is the kept tool for "a man page from --help", and lintian
# accepts its output. ferry's --help lists the commands only, so each command's own --help (the same text
# `ferry help CMD` prints, from the command specs) is added as section COMMANDS through help2man's --include.
set -euo pipefail
[[ $# -eq 4 ]] || { echo 'usage: generate-docs.sh NODE FERRY_BIN VERSION OUT' >&2; exit 2; }
node=$1 ferry_bin=$2 version=$3 out=$4
command -v help2man >/dev/null || { echo 'generate-docs: help2man is missing (apt-get install help2man)' >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The staged ferry, as help2man runs it: its own Node, no compile cache in the builder's home, a fixed width, and its
# few non-ASCII characters (— × …) spelled in ASCII: help2man turns them into '???' otherwise.
cat >"$work/ferry" <<LAUNCH
#!/bin/sh
NODE_DISABLE_COMPILE_CACHE=1 COLUMNS=100 "$node" "$ferry_bin" "\$@" | iconv -f UTF-8 -t ASCII//TRANSLIT
LAUNCH
chmod 755 "$work/ferry"
ferry=$work/ferry

mkdir -p "$out/completion" "$out/man"
NODE_DISABLE_COMPILE_CACHE=1 "$node" "$ferry_bin" completion bash >"$out/completion/ferry.bash"
{
  echo '#compdef ferry'
  echo '# zsh autoloads this file as _ferry: it defines the completion (bashcompinit) and completes this first call too.'
  NODE_DISABLE_COMPILE_CACHE=1 "$node" "$ferry_bin" completion zsh
  echo '_bash_complete -F _ferry "$@"'
} >"$out/completion/_ferry"

# roff-safe verbatim text: backslashes escaped, a leading . or ' neutralised, '-' as a real minus.
verbatim() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" -e 's/-/\\-/g'; }
commands=$("$ferry" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z]*\( [a-z][a-z]*\)\{0,1\}\)  .*/\1/p')
[[ -n $commands ]] || { echo 'generate-docs: found no commands in ferry --help' >&2; exit 1; }
{
  echo '[COMMANDS]'
  printf '%s\n' 'Each command with its own options, as \fBferry\fR \fIcommand\fR \fB\-\-help\fR prints them.'
  while IFS= read -r cmd; do
    echo ".SS \"ferry $cmd\""
    echo '.nf'
    # shellcheck disable=SC2086 # cmd is one or two words
    "$ferry" $cmd --help | verbatim
    echo '.fi'
  done <<<"$commands"
  echo '[FILES]'
  echo '.TP'
  echo '.I /etc/default/ferry-agent'
  echo 'settings of ferry\-agent.service (FERRY_AGENT_ARGS, credentials, FERRY_NOVA_PATCH)'
  echo '.TP'
  echo '.I /run/ferry/agent.sock'
  printf '%s\n' "the agent's socket, which \\fBferry ensure\\fR and nova's image backend ask"
  echo '[SEE ALSO]'
  echo 'The documentation in /usr/lib/ferry/docs/ (Debian package) or PREFIX/lib/ferry/docs/ (artifact).'
} >"$work/include.h2m"
LC_ALL=C.UTF-8 help2man --no-info --no-discard-stderr --version-string="$version" \
  --name='put OpenStack images where they will be booted' --include="$work/include.h2m" \
  --output="$out/man/ferry.1" "$ferry"
echo "generate-docs: $out/completion/{ferry.bash,_ferry}, $out/man/ferry.1 ($(wc -l <"$out/man/ferry.1") lines)" >&2
