#!/bin/sh
# Installs ferry from this unpacked artifact: ./install.sh [--prefix DIR]   (default /usr/local)
#   DIR/lib/ferry/          the ferry package, its production dependencies, and its own Node (lib/ferry/node/)
#   DIR/bin/ferry           a launcher that runs lib/ferry/bin/ferry with that Node (the system's node is never used)
#   DIR/lib/systemd/system/ the units, their /usr/bin/ferry rewritten to DIR/bin/ferry, /usr/lib/ferry/ to DIR/lib/ferry/
#                           and their docs to DIR/lib/ferry/docs/ (systemd reads /usr/local/lib/...)
#   DIR/share/...           bash and zsh completion, ferry(1); lib/ferry/integrations/nova: the Python client, patches
# Needs no network and no Node.js on the host. Installing again over an older version replaces it.
set -eu

prefix=/usr/local
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument '$1' (usage: ./install.sh [--prefix DIR])" >&2; exit 2 ;;
  esac
done

here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/lib/ferry/node/bin/node" ] || { echo "install.sh: $here is not an unpacked ferry artifact" >&2; exit 1; }
mkdir -p "$prefix/bin" "$prefix/lib"
prefix=$(cd "$prefix" && pwd)

# Copy next to the old install, then swap, so a failed copy never leaves half an installation.
rm -rf "$prefix/lib/ferry.new" "$prefix/lib/ferry.old"
cp -R "$here/lib/ferry" "$prefix/lib/ferry.new"
if [ -e "$prefix/lib/ferry" ]; then mv "$prefix/lib/ferry" "$prefix/lib/ferry.old"; fi
mv "$prefix/lib/ferry.new" "$prefix/lib/ferry"
rm -rf "$prefix/lib/ferry.old"

cat > "$prefix/bin/ferry.new" <<EOF
#!/bin/sh
# ferry launcher written by install.sh: ferry's own Node, whatever node is on PATH.
exec "$prefix/lib/ferry/node/bin/node" "$prefix/lib/ferry/bin/ferry" "\$@"
EOF
chmod 755 "$prefix/bin/ferry.new"
mv "$prefix/bin/ferry.new" "$prefix/bin/ferry"

# The units, pointing at this launcher: the same files the Debian package puts in /lib/systemd/system, whose
# ExecStart runs /usr/bin/ferry, whose ExecStartPre runs /usr/lib/ferry/node/bin/node and whose Documentation= names
# /usr/share/doc/ferry. systemd reads /usr/local/lib/systemd/system (and /etc/systemd/system for others).
mkdir -p "$prefix/lib/systemd/system"
for unit in "$here"/share/systemd/*; do
  [ -f "$unit" ] || continue
  sed -e "s|/usr/bin/ferry|$prefix/bin/ferry|g" -e "s|/usr/lib/ferry/|$prefix/lib/ferry/|g" \
    -e "s|file:/usr/share/doc/ferry/|file:$prefix/lib/ferry/docs/|g" "$unit" >"$prefix/lib/systemd/system/$(basename "$unit")"
  chmod 644 "$prefix/lib/systemd/system/$(basename "$unit")"
done
install_file() { mkdir -p "$(dirname "$2")" && cp "$1" "$2" && chmod 644 "$2"; }
install_file "$here/share/completion/ferry.bash" "$prefix/share/bash-completion/completions/ferry"
install_file "$here/share/completion/_ferry" "$prefix/share/zsh/site-functions/_ferry"
install_file "$here/share/man/ferry.1" "$prefix/share/man/man1/ferry.1"
# The Python client where the system python3 of this prefix looks (Debian: /usr/local/lib/python3.X/dist-packages).
if command -v python3 >/dev/null; then
  pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  install_file "$prefix/lib/ferry/integrations/nova/ferry_agent.py" "$prefix/lib/python$pyver/dist-packages/ferry_agent.py"
fi

version=$("$prefix/bin/ferry" --version) || { echo "install.sh: $prefix/bin/ferry --version failed" >&2; exit 1; }
echo "installed ferry $version in $prefix (run $prefix/bin/ferry --help)"
