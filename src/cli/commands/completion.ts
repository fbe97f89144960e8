import { COMPLETION_SHELLS, completionDocument, completionJsonSchema, type CompletionReport } from '../../contract/completion-document.js';
import { FerryError } from '../../errors/ferry-error.js';
import type { CommandCatalog, CommandSpec, OptionSpec } from '../command-spec.js';
import { commandOptions } from '../global-options.js';

const OUTPUT_FLAGS = ['-f', '-c', '--help'];

/** Every command with its flags, from the same specs the parser uses (so completion never offers a flag that is not there). */
async function commandFlags(commands: CommandCatalog): Promise<[string, string[]][]> {
  const flags = (options: readonly OptionSpec[]): string[] => options.map((o) => `--${o.name}`);
  const specs = await Promise.all(Object.entries(commands).map(async ([name, entry]) => [name, await entry.load()] as const));
  return specs.map(([name, spec]: readonly [string, CommandSpec<unknown>]) => [name, [...flags(commandOptions(spec)), ...OUTPUT_FLAGS]]);
}

/** The completion script for bash (`complete -F`) or zsh (bashcompinit, the same function). */
export function completionScript(shell: 'bash' | 'zsh', commands: readonly [string, readonly string[]][]): string {
  const top = [...new Set(commands.map(([name]) => name.split(' ')[0]!)), 'help', '--help', '--version'];
  const cases = commands.map(([name, flags]) => `    '${name}') flags='${flags.join(' ')}' ;;`);
  const subcommands = commands.filter(([name]) => name.includes(' ')).map(([name]) => name.split(' '));
  const subCases = [...new Set(subcommands.map(([first]) => first!))].map((first) =>
    `    '${first}') subs='${subcommands.filter(([f]) => f === first).map(([, second]) => second).join(' ')}' ;;`);
  const body = [
    '# ferry completion: eval "$(ferry completion ' + shell + ')" (generated from the command specs)',
    ...(shell === 'zsh' ? ['autoload -Uz bashcompinit && bashcompinit'] : []),
    '_ferry() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" cmd="" subs="" flags=""',
    '  if [ "$COMP_CWORD" -eq 1 ]; then',
    `    COMPREPLY=($(compgen -W '${top.join(' ')}' -- "$cur")); return`,
    '  fi',
    '  cmd="${COMP_WORDS[1]}"',
    '  [ "$cmd" = help ] && { COMPREPLY=($(compgen -W \'' + top.filter((t) => !t.startsWith('-') && t !== 'help').join(' ') + '\' -- "$cur")); return; }',
    '  case "$cmd" in',
    ...subCases,
    '  esac',
    '  if [ "$COMP_CWORD" -eq 2 ] && [ -n "$subs" ] && [ "${cur#-}" = "$cur" ]; then',
    '    COMPREPLY=($(compgen -W "$subs" -- "$cur")); return',
    '  fi',
    '  if [ -n "$subs" ] && [ "$COMP_CWORD" -gt 2 ]; then',
    '    case " $subs " in *" ${COMP_WORDS[2]} "*) cmd="$cmd ${COMP_WORDS[2]}" ;; esac',
    '  fi',
    '  case "$cmd" in',
    ...cases,
    '  esac',
    '  case "${COMP_WORDS[COMP_CWORD-1]}" in',
    "    -f|--format) COMPREPLY=($(compgen -W 'json yaml value table' -- \"$cur\")); return ;;",
    '  esac',
    '  if [ "${cur#-}" != "$cur" ]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi',
    '}',
    'complete -F _ferry ferry',
  ];
  return body.join('\n');
}

/** `ferry completion`, for the commands of `commands` (the registry hands itself in). */
export function createCompletionCommand(commands: CommandCatalog): CommandSpec<CompletionReport> {
  return {
    name: 'completion',
    description: 'bash: eval "$(ferry completion bash)" in ~/.bashrc, or save it as /etc/bash_completion.d/ferry. '
      + 'zsh: eval "$(ferry completion zsh)" in ~/.zshrc (uses bashcompinit).',
    examples: ['ferry completion bash > /etc/bash_completion.d/ferry', 'eval "$(ferry completion zsh)"'],
    arguments: [{ name: 'SHELL', description: 'bash or zsh', required: true }],
    options: [],
    offline: true,
    jsonSchema: completionJsonSchema,
    async run(ctx) {
      const shell = ctx.args[0] ?? '';
      if (!(COMPLETION_SHELLS as readonly string[]).includes(shell)) {
        throw new FerryError('FERRY_INVALID_OPTION', `no completion for shell '${shell}'`, 'Pass bash or zsh: ferry completion bash.', { shell });
      }
      return { shell: shell as CompletionReport['shell'], script: completionScript(shell as CompletionReport['shell'], await commandFlags(commands)) };
    },
    toJson: completionDocument,
    render: (report) => report.script,
    verbatimText: true,
  };
}
