import { destination as pinoDestination, pino, type Logger } from 'pino';
import { stderrIsJournal, withPriorityPrefix } from './journald-priority.js';
import { escapeControlsInJson } from './terminal-controls.js';

export type { Logger } from 'pino';

/** Paths pino blanks out wherever they appear in a log object: tokens, passwords, secrets. */
export const REDACTED_PATHS = [
  'token', '*.token', 'userToken', '*.userToken', 'password', '*.password', '*.*.password', 'secret', '*.secret', '*.*.secret',
  'headers["x-auth-token"]', 'headers["x-subject-token"]', 'headers["x-service-token"]',
  '*.headers["x-auth-token"]', '*.headers["x-subject-token"]', '*.headers["x-service-token"]',
  'auth.identity.password.user.password', 'auth.identity.application_credential.secret',
] as const;

export interface LoggerOptions {
  readonly level?: string;                 // pino level; default 'warn'
  readonly destination?: NodeJS.WritableStream | number; // default stderr (fd 2): stdout belongs to the CLI's output
  /** Prefix each line with its syslog priority `<N>` for journald. Default: when the destination is stderr and stderr is the journal (JOURNAL_STREAM). */
  readonly journald?: boolean;
}

/** Structured logs on stderr with secrets redacted. The library logs; it never prints. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? 2;
  const stream = typeof destination === 'number' ? pinoDestination({ fd: destination, sync: true }) : destination;
  const journald = options.journald ?? ((destination === 2 || destination === process.stderr) && stderrIsJournal());
  return pino(
    { level: options.level ?? 'warn', base: undefined, redact: { paths: [...REDACTED_PATHS], censor: '<redacted>' },
      // pino escapes C0 in its strings but not C1 or bidi controls, which a log line on a terminal would carry raw.
      hooks: { streamWrite: journald ? (line: string) => withPriorityPrefix(escapeControlsInJson(line)) : escapeControlsInJson } },
    stream,
  );
}

/** A logger that drops everything: the library default when the caller passes none. */
export const silentLogger: Logger = pino({ level: 'silent' });
