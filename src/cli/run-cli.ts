import { readFileSync } from 'node:fs';
import type * as CommanderModule from 'commander';
import type { Option as CommanderOption } from 'commander';
import type { Cloud } from '../cloud/cloud.js';
import type { FerryConfig } from '../config/ferry-config.js';
import { ERROR_TABLE } from '../errors/error-table.js';
import { FerryError, isFerryError } from '../errors/ferry-error.js';
import type { Logger } from '../logging/logger.js';
import { FERRY_VERSION } from '../metrics/ferry-version.js';
import { COMMANDS } from './command-registry.js';
import type { CommandContext, CommandSpec, FlagValue, OptionSpec, ProgressSink } from './command-spec.js';
import { assertListFormat, isDocumentFormat, parseOutputFormat, type OutputChoice } from './output/output-format.js';

// Start-up: only the lines above load for `ferry --version` and `ferry --help`. Everything a command needs (commander,
// the config layer with zod, pino, the HTTP transport through connectCloud, the command's own module) is imported
// once a command is known, so a quick question never pays for the heaviest command (bench/startup.ts).

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WriteStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working directory, or why the system cannot say it (removed, or a directory above it not searchable). */
  readonly cwd: string | UnreadableDirectory;
  readonly homeDir: string;
  /** The effective uid (process.geteuid; undefined where there is none): root reads no ./clouds.yaml. */
  readonly euid?: number | undefined;
  readonly signal: AbortSignal;
  /** Colour and live progress only on a TTY. */
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** Injectable for tests; default connects to the configured cloud. */
  readonly connect?: (config: FerryConfig, logger: Logger) => Promise<Cloud>;
  readonly readFile?: (path: string) => string;
  /** How long the process ran before the command (start-up): a command's deadline counts from the process start. */
  readonly startupMs?: () => number;
}

/** process.cwd() failed: its error code (ENOENT when the directory was removed, EACCES). */
export interface UnreadableDirectory { readonly unreadable: string }

/**
 * The directory ferry looks for ./clouds.yaml in and resolves relative paths against. Asked only by a command that
 * reads its configuration (`--version` and `--help` need none), and refused with one message when it cannot be read.
 */
function readableCwd(cwd: CliIo['cwd']): string {
  if (typeof cwd === 'string') return cwd;
  throw new FerryError('FERRY_INVALID_CONFIG',
    `the current working directory cannot be read (${cwd.unreadable}): it was removed, or a directory above it is not searchable`,
    'ferry looks for ./clouds.yaml there and resolves relative paths against it: cd to a directory that exists (e.g. cd /) and run ferry again.',
    { cwd: cwd.unreadable });
}

/** One version for `--version` and the build_info metrics (src/metrics/ferry-version.ts). */
export const VERSION = FERRY_VERSION;

const SILENT_PROGRESS: ProgressSink = { update: () => undefined, log: () => undefined, clear: () => undefined };

/** Runs one ferry command and returns its exit code. Writes the report to stdout, everything else to stderr. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // Until the output flags are read (they may be malformed), an error goes out as JSON only if --json was given.
  let output: OutputChoice = { format: argv.includes('--json') ? 'json' : 'text', columns: [], wholeDocument: true, rest: argv };
  const debug = argv.includes('--debug');
  const write = (stream: NodeJS.WritableStream, text: string): void => {
    stream.write(text.endsWith('\n') ? text : `${text}\n`);
  };
  let cloud: Cloud | undefined;
  try {
    output = parseOutputFormat(argv);
    const [first, ...afterFirst] = output.rest;
    // A two-word command (`ferry traits report`) is registered under both words and wins over the one-word one.
    const twoWords = afterFirst[0] === undefined ? undefined : `${first ?? ''} ${afterFirst[0]}`;
    let [name, rest] = twoWords !== undefined && Object.hasOwn(COMMANDS, twoWords)
      ? [twoWords, afterFirst.slice(1)] : [first, afterFirst];
    // `ferry help CMD [SUB]` is `ferry CMD [SUB] --help`.
    if (name === 'help' && rest.length > 0) {
      const [helpFirst, ...helpRest] = rest;
      const helpTwo = helpRest[0] === undefined ? undefined : `${helpFirst ?? ''} ${helpRest[0]}`;
      name = helpTwo !== undefined && Object.hasOwn(COMMANDS, helpTwo) ? helpTwo : helpFirst;
      rest = ['--help'];
    }
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      write(io.stdout, overallHelp());
      return 0;
    }
    if (name === '--version' || name === '-V') {
      write(io.stdout, VERSION);
      return 0;
    }
    const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (entry === undefined) {
      throw new FerryError('FERRY_INVALID_OPTION', `unknown command '${name}'`,
        `Commands: ${Object.keys(COMMANDS).join(', ')}. See ferry --help.`, { command: name });
    }
    const [spec, { commandOptionGroups, commandOptions, isCloudOption, REPEATABLE_CONFIG_FLAGS }, commander] = await Promise.all([entry.load(),
      import('./global-options.js'), import('commander')]);
    const options = commandOptions(spec);
    assertListFormat(output.format, name, spec.rows !== undefined);
    // A wrong -c on prewarm is refused before it copies, not after.
    if (spec.rowColumns !== undefined && output.columns.length > 0 && output.format !== 'text' && !output.wholeDocument) {
      (await import('./output/row-list.js')).selectRowColumns({ columns: spec.rowColumns, rows: [] }, output.columns);
    }
    const parsed = parseCommandLine(spec, rest, options, commander, isCloudOption);
    if (parsed === 'help') {
      write(io.stdout, commandHelp(spec, entry.summary, commandOptionGroups(spec)));
      return 0;
    }
    const [{ resolveConfig }, { createLogger }, { textStyle }, { terminalSafe, terminalSink, terminalText }, { connectCloud }] = await Promise.all([
      import('../config/resolve-config.js'), import('../logging/logger.js'), import('./output/text-style.js'), import('./output/terminal-text.js'),
      io.connect === undefined ? import('../cloud/connect-cloud.js') : { connectCloud: undefined }]);
    const { normalizeDurationFlags } = await import('./duration-flags.js');
    const flags = normalizeDurationFlags(parsed.flags, options);
    // Lists reach the config only for its repeatable options (--nova-conf); a command's own list (prewarm --store) does not.
    const scalarFlags = Object.fromEntries(Object.entries(flags).filter((entry): entry is [string, string | boolean | readonly string[]] =>
      typeof entry[1] === 'string' || typeof entry[1] === 'boolean' || (Array.isArray(entry[1]) && REPEATABLE_CONFIG_FLAGS.has(entry[0]))));
    const cwd = readableCwd(io.cwd);
    const config = resolveConfig({ flags: scalarFlags, env: io.env, cwd, homeDir: io.homeDir, euid: io.euid });
    const logger = createLogger({ level: config.log.level, destination: io.stderr });
    const machine = output.format !== 'text';
    const style = textStyle(io.stdoutIsTTY && io.env.NO_COLOR === undefined && !machine);
    const live = io.stderrIsTTY && !machine;
    // log-update (and the terminal-width modules under it) only for a live TTY area.
    const progress = live ? terminalSink((await import('./output/live-progress.js')).liveProgress(io.stderr, true)) : SILENT_PROGRESS;
    const ctx: CommandContext = {
      args: parsed.args,
      flags,
      config,
      json: machine,
      logger,
      signal: io.signal,
      progress,
      interactive: live,
      // Lines that stay: above the live area on a TTY; plain on stderr otherwise (stdout stays the report's).
      notice: (line) => (live ? progress.log(line) : write(io.stderr, terminalText(line, true))),
      readFile: io.readFile ?? ((path) => readFileSync(path, 'utf8')),
      env: io.env,
      reloadConfig: () => resolveConfig({ flags: scalarFlags, env: io.env, cwd, homeDir: io.homeDir, euid: io.euid }),
      spentMs: io.startupMs ?? (() => 0),
      connect: async () => {
        cloud ??= await (io.connect ?? connectCloud!)(config, logger);
        return cloud;
      },
    };
    const report = await spec.run(ctx);
    ctx.progress.clear();
    if (output.format === 'text') {
      // Text is for people, on a terminal now or later (less, a saved file): the services' strings are shown escaped.
      write(io.stdout, spec.render(spec.verbatimText === true ? report : terminalSafe(report), style));
    } else {
      const [{ renderOutput }, { resolveTableWidth }] = await Promise.all([import('./output/render-output.js'), import('./output/fit-column-widths.js')]);
      const text = await renderOutput({ command: name, document: spec.toJson(report), rows: spec.rows?.(report), choice: output,
        width: resolveTableWidth((io.stdout as { columns?: unknown }).columns, io.env), terminal: io.stdoutIsTTY });
      // An empty list in -f value is no line at all, as osc prints it.
      if (text !== '') write(io.stdout, text);
    }
    return spec.exitCode?.(report) ?? 0;
  } catch (error) {
    const failure = await asFerryError(error, io.signal);
    const [{ renderError }, { textStyle }] = await Promise.all([import('./output/render-error.js'), import('./output/text-style.js')]);
    if (isDocumentFormat(output.format)) {
      const [{ errorJson }, { renderDocument }] = await Promise.all([import('../contract/error-document.js'), import('./output/render-document.js')]);
      write(io.stdout, renderDocument(errorJson(failure), output.format, []));
    } else write(io.stderr, renderError(failure, textStyle(io.stderrIsTTY && io.env.NO_COLOR === undefined)));
    const stack = !debug ? undefined : !isFerryError(error) && error instanceof Error ? error.stack
      : isFerryError(error) && error.cause instanceof Error && error.cause.stack ? `cause: ${error.cause.stack}` : undefined;
    // A stack repeats the message, which may hold a service's words.
    if (stack) write(io.stderr, (await import('./output/terminal-text.js')).terminalText(stack, true));
    return ERROR_TABLE[failure.code].exit;
  } finally {
    await cloud?.close();
  }
}

async function asFerryError(error: unknown, signal: AbortSignal): Promise<FerryError> {
  if (isFerryError(error)) return error;
  if (signal.aborted) return new FerryError('FERRY_ABORTED', 'interrupted', 'Run the same command again to pick up where it stopped.');
  const { CommanderError } = await import('commander');
  if (error instanceof CommanderError) {
    return new FerryError('FERRY_INVALID_OPTION', error.message.replace(/^error: /, ''), 'See ferry <command> --help.');
  }
  const message = error instanceof Error ? error.message : String(error);
  return new FerryError('FERRY_INTERNAL', `unexpected error: ${message}`,
    'This is a bug in ferry: please report it with the output of the same command run with --debug.', {}, { cause: error });
}

interface ParsedCommandLine {
  readonly args: readonly string[];
  readonly flags: Readonly<Record<string, FlagValue>>;
}

type Commander = typeof CommanderModule;

function parseCommandLine(spec: CommandSpec<unknown>, argv: readonly string[], options: readonly OptionSpec[],
  { Command, Option, CommanderError }: Commander, isCloudOption: (name: string) => boolean): ParsedCommandLine | 'help' {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  const command = new Command(spec.name).exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
    .allowExcessArguments(false).helpOption(false);
  for (const option of options) command.addOption(toCommanderOption(option, Option));
  for (const argument of spec.arguments) {
    const label = argument.variadic ? `${argument.name}...` : argument.name;
    command.argument(argument.required ? `<${label}>` : `[${label}]`, argument.description);
  }
  let args: string[] = [];
  command.action((...actionArgs: unknown[]) => {
    args = actionArgs.slice(0, spec.arguments.length).flatMap((value) => (Array.isArray(value) ? (value as string[])
      : typeof value === 'string' ? [value] : []));
  });
  try {
    command.parse([...argv], { from: 'user' });
  } catch (error) {
    const unknown = error instanceof CommanderError && error.code === 'commander.unknownOption' ? /'--([^'=]+)/.exec(error.message)?.[1] : undefined;
    if (spec.offline === true && unknown !== undefined && isCloudOption(unknown)) {
      throw new FerryError('FERRY_INVALID_OPTION', `ferry ${spec.name} talks to no cloud: --${unknown} does not apply`,
        `Drop --${unknown}: only the commands that ask Keystone, Glance or Placement take the cloud options (their --help lists them).`, { option: unknown });
    }
    throw error;
  }
  const raw = command.opts<Record<string, FlagValue>>();
  // commander camel-cases option keys; the config layer and commands use the flag's own name.
  const flags: Record<string, FlagValue> = {};
  for (const option of options) {
    const value = raw[camel(option.name)];
    if (value !== undefined) flags[option.name] = value;
  }
  return { args, flags };
}

function toCommanderOption(option: OptionSpec, Option: Commander['Option']): CommanderOption {
  const flag = option.value ? `--${option.name} <${option.value}>` : `--${option.name}`;
  const created = new Option(flag, option.description);
  if (option.repeatable) created.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
  return created;
}

function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function overallHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`);
  return ['ferry — put OpenStack images where they will be booted', '', 'Usage: ferry <command> [options]', '',
    'Commands:', ...lines, '', 'ferry <command> --help (or ferry help <command>) shows a command\'s options.',
    'For scripts: --json, or -f json|yaml|value|csv|table with -c COLUMN (lists print rows, as osc).',
    'Docs: cli.md in /usr/share/doc/ferry/ (Debian package), PREFIX/lib/ferry/docs/ (install.sh) or docs/ (source).'].join('\n');
}

function commandHelp(spec: CommandSpec<unknown>, summary: string, groups: readonly { heading: string; options: readonly OptionSpec[] }[]): string {
  const args = spec.arguments.map((a) => (a.required ? `<${a.name}${a.variadic ? '...' : ''}>` : `[${a.name}${a.variadic ? '...' : ''}]`));
  const describe = (options: readonly OptionSpec[]): string[] => options.map((o) => {
    const label = `  --${o.name}${o.value ? ` ${o.value}` : ''}`;
    return `${label.length < 40 ? label.padEnd(40) : `${label}  `}${o.description}${o.repeatable ? ' (repeatable)' : ''}`;
  });
  return [`Usage: ferry ${[spec.name, ...args].join(' ')} [options]`, '', summary, ...(spec.description ? ['', spec.description] : []),
    ...(spec.arguments.length ? ['', 'Arguments:', ...spec.arguments.map((a) => `  ${a.name.padEnd(38)}${a.description}`)] : []),
    ...groups.flatMap((group) => (group.options.length > 0 ? ['', group.heading, ...describe(group.options)] : [])),
    '', 'Examples:', ...spec.examples.map((e) => `  ${e}`)].join('\n');
}
