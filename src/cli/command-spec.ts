import type { z } from 'zod';
import type { Cloud } from '../cloud/cloud.js';
import type { FerryConfig } from '../config/ferry-config.js';
import type { Logger } from '../logging/logger.js';
import type { RowColumn, RowList } from './output/row-list.js';
import type { TextStyle } from './output/text-style.js';

export type FlagValue = string | boolean | readonly string[] | undefined;

export interface OptionSpec {
  /** Long name without dashes: 'store' → --store. */
  readonly name: string;
  /** Placeholder of the value; absent = a boolean switch. */
  readonly value?: string;
  readonly description: string;
  /** May be given more than once (values collected into an array). */
  readonly repeatable?: boolean;
  /** A time: `90`, `90s`, `10m`, `1h` (plain number = seconds); the runner hands the command seconds (duration-flags.ts). */
  readonly duration?: boolean;
}

export interface ArgumentSpec {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
  /** Takes every remaining argument. */
  readonly variadic?: boolean;
}

/** The live status line on a TTY (stderr); a no-op elsewhere and with --json. */
export interface ProgressSink {
  update(text: string): void;
  /** A line that stays (e.g. one finished copy). */
  log(text: string): void;
  clear(): void;
}

export interface CommandContext {
  readonly args: readonly string[];
  readonly flags: Readonly<Record<string, FlagValue>>;
  readonly config: FerryConfig;
  /** Credentials are required only when a command calls this. */
  connect(): Promise<Cloud>;
  readonly signal: AbortSignal;
  readonly progress: ProgressSink;
  /** True when `progress` shows (stderr is a TTY and no --json): batch commands then draw live, else log lines. */
  readonly interactive?: boolean;
  /** A line for the operator that stays on stderr: above the live area on a TTY, plain otherwise (also with --json). */
  readonly notice?: (line: string) => void;
  readonly logger: Logger;
  readonly json: boolean;
  /** Reads a file named on the command line (FILE arguments); injectable for tests. */
  readFile(path: string): string;
  /** The process environment (FERRY_AGENT_SOCKET and such, read by commands, not by the config layer). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Resolve the configuration again from the same flags and environment (the agent on SIGHUP). */
  readonly reloadConfig?: () => FerryConfig;
  /** Time the process has spent since it started (0 in-process): `--timeout` counts from the command's start. */
  spentMs(): number;
}

/**
 * One CLI command: parse → call the library → return a typed report. Rendering lives in cli/render/. Its one-line
 * summary is its CommandEntry's (command-registry.ts), so `ferry --help` needs no command module.
 */
export interface CommandSpec<R> {
  readonly name: string;
  readonly description?: string;
  readonly examples: readonly string[];
  readonly arguments: readonly ArgumentSpec[];
  readonly options: readonly OptionSpec[];
  /** Talks to no cloud (no Keystone, Glance, Placement): the cloud options are neither listed in its help nor taken. */
  readonly offline?: boolean;
  /** Documented JSON output; tests check docs examples against it. */
  readonly jsonSchema?: z.ZodType;
  run(ctx: CommandContext): Promise<R>;
  toJson(report: R): unknown;
  /**
   * A list command's report as rows (`-f value|csv|table|json|yaml`, `-c COLUMN`, as osc's list commands); undefined
   * when this report is one object (`status IMAGE`). Commands without it print their document in every format.
   */
  rows?(report: R): RowList | undefined;
  /** The columns of `rows` when they are known before the command runs: `-c` is then checked before anything is done. */
  readonly rowColumns?: readonly RowColumn[];
  render(report: R, style: TextStyle): string;
  /**
   * The text is ferry's own, written byte for byte (a shell script): otherwise every string of the report is shown
   * with its terminal controls escaped (output/terminal-text.ts), line feeds included.
   */
  readonly verbatimText?: boolean;
  /** Non-zero for reports that describe a partial failure (e.g. a batch where some items failed). */
  exitCode?(report: R): number;
}

/** A command as the registry lists it: its summary (`ferry --help`), and its module, loaded on demand. */
export interface CommandEntry {
  readonly summary: string;
  load(): Promise<CommandSpec<unknown>>;
}

/** Every command by the words that call it (`ensure`, `traits report`). */
export type CommandCatalog = Readonly<Record<string, CommandEntry>>;
