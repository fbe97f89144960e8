import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import type { Cloud } from '../cloud/cloud.js';
import { connectCloud } from '../cloud/connect-cloud.js';
import { resolveConfig } from '../config/resolve-config.js';
import type { FerryConfig } from '../config/ferry-config.js';
import { ERROR_TABLE } from '../errors/error-table.js';
import { FerryError, isFerryError } from '../errors/ferry-error.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { COMMANDS } from './command-registry.js';
import type { CommandContext, CommandSpec, FlagValue, OptionSpec } from './command-spec.js';
import { GLOBAL_OPTIONS } from './global-options.js';
import { liveProgress } from './output/live-progress.js';
import { renderError } from './output/render-error.js';
import { textStyle } from './output/text-style.js';

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WriteStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly homeDir: string;
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

export const VERSION = '0.1.0';

/** Runs one ferry command and returns its exit code. Writes the report to stdout, everything else to stderr. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json');
  const debug = argv.includes('--debug');
  const write = (stream: NodeJS.WritableStream, text: string): void => {
    stream.write(text.endsWith('\n') ? text : `${text}\n`);
  };
  let cloud: Cloud | undefined;
  try {
    const [first, ...afterFirst] = argv;
    // A two-word command (`ferry traits report`) is registered under both words and wins over the one-word one.
    const twoWords = afterFirst[0] === undefined ? undefined : `${first ?? ''} ${afterFirst[0]}`;
    const [name, rest] = twoWords !== undefined && Object.hasOwn(COMMANDS, twoWords)
      ? [twoWords, afterFirst.slice(1)] : [first, afterFirst];
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
    const spec = await entry.load();
    const parsed = parseCommandLine(spec, rest);
    if (parsed === 'help') {
      write(io.stdout, commandHelp(spec));
      return 0;
    }
    const scalarFlags = Object.fromEntries(Object.entries(parsed.flags).filter((entry): entry is [string, string | boolean] =>
      typeof entry[1] === 'string' || typeof entry[1] === 'boolean'));
    const config = resolveConfig({ flags: scalarFlags, env: io.env, cwd: io.cwd, homeDir: io.homeDir });
    const logger = createLogger({ level: config.log.level, destination: io.stderr });
    const style = textStyle(io.stdoutIsTTY && io.env.NO_COLOR === undefined && !json);
    const live = io.stderrIsTTY && !json;
    const progress = liveProgress(io.stderr, live);
    const ctx: CommandContext = {
      args: parsed.args,
      flags: parsed.flags,
      config,
      json,
      logger,
      signal: io.signal,
      progress,
      interactive: live,
      // Lines that stay: above the live area on a TTY; plain on stderr otherwise (stdout stays the report's).
      notice: (line) => (live ? progress.log(line) : write(io.stderr, line)),
      readFile: io.readFile ?? ((path) => readFileSync(path, 'utf8')),
      spentMs: io.startupMs ?? (() => 0),
      connect: async () => {
        cloud ??= await (io.connect ?? connectCloud)(config, logger);
        return cloud;
      },
    };
    const report = await spec.run(ctx);
    ctx.progress.clear();
    write(io.stdout, json ? JSON.stringify(spec.toJson(report), null, 2) : spec.render(report, style));
    return spec.exitCode?.(report) ?? 0;
  } catch (error) {
    const failure = asFerryError(error, io.signal);
    if (json) write(io.stdout, JSON.stringify({ error: { code: failure.code, message: failure.message, hint: failure.hint } }, null, 2));
    else write(io.stderr, renderError(failure, textStyle(io.stderrIsTTY && io.env.NO_COLOR === undefined)));
    if (debug && !isFerryError(error) && error instanceof Error && error.stack) write(io.stderr, error.stack);
    else if (debug && isFerryError(error) && error.cause instanceof Error && error.cause.stack) write(io.stderr, `cause: ${error.cause.stack}`);
    return ERROR_TABLE[failure.code].exit;
  } finally {
    await cloud?.close();
  }
}

function asFerryError(error: unknown, signal: AbortSignal): FerryError {
  if (isFerryError(error)) return error;
  if (signal.aborted) return new FerryError('FERRY_ABORTED', 'interrupted', 'Run the same command again to pick up where it stopped.');
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

function parseCommandLine(spec: CommandSpec<unknown>, argv: readonly string[]): ParsedCommandLine | 'help' {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  const command = new Command(spec.name).exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
    .allowExcessArguments(false).helpOption(false);
  for (const option of [...GLOBAL_OPTIONS, ...spec.options]) command.addOption(toCommanderOption(option));
  for (const argument of spec.arguments) {
    const label = argument.variadic ? `${argument.name}...` : argument.name;
    command.argument(argument.required ? `<${label}>` : `[${label}]`, argument.description);
  }
  let args: string[] = [];
  command.action((...actionArgs: unknown[]) => {
    args = actionArgs.slice(0, spec.arguments.length).flatMap((value) => (Array.isArray(value) ? (value as string[])
      : typeof value === 'string' ? [value] : []));
  });
  command.parse([...argv], { from: 'user' });
  const raw = command.opts<Record<string, FlagValue>>();
  // commander camel-cases option keys; the config layer and commands use the flag's own name.
  const flags: Record<string, FlagValue> = {};
  for (const option of [...GLOBAL_OPTIONS, ...spec.options]) {
    const value = raw[camel(option.name)];
    if (value !== undefined) flags[option.name] = value;
  }
  return { args, flags };
}

function toCommanderOption(option: OptionSpec): Option {
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
    'Commands:', ...lines, '', 'ferry <command> --help shows a command\'s options. Docs: docs/cli.md'].join('\n');
}

function commandHelp(spec: CommandSpec<unknown>): string {
  const args = spec.arguments.map((a) => (a.required ? `<${a.name}${a.variadic ? '...' : ''}>` : `[${a.name}${a.variadic ? '...' : ''}]`));
  const describe = (options: readonly OptionSpec[]): string[] => options.map((o) =>
    `  --${o.name}${o.value ? ` ${o.value}` : ''}`.padEnd(40) + o.description + (o.repeatable ? ' (repeatable)' : ''));
  return [`Usage: ferry ${spec.name} ${args.join(' ')} [options]`, '', spec.summary, ...(spec.description ? ['', spec.description] : []),
    ...(spec.arguments.length ? ['', 'Arguments:', ...spec.arguments.map((a) => `  ${a.name.padEnd(38)}${a.description}`)] : []),
    '', 'Options:', ...describe(spec.options), '', 'Cloud and output options:', ...describe(GLOBAL_OPTIONS),
    '', 'Examples:', ...spec.examples.map((e) => `  ${e}`)].join('\n');
}
