import { fstatSync, type BigIntStats } from 'node:fs';

/**
 * syslog priority (journald's PRIORITY=) of a pino level: fatal → 2 crit, error → 3 err, warn → 4 warning,
 * info → 6 info, debug and trace → 7 debug. (Nothing of ferry's is "notice", 5.)
 */
export function syslogPriority(pinoLevel: number): number {
  if (pinoLevel >= 60) return 2;
  if (pinoLevel >= 50) return 3;
  if (pinoLevel >= 40) return 4;
  if (pinoLevel >= 30) return 6;
  return 7;
}

/**
 * A pino line with journald's `<N>` prefix (SyslogLevelPrefix=, on by default): journald strips it and stores the line
 * at priority N, so `journalctl -p warning` picks out warnings and errors. pino writes `level` first in every line.
 */
export function withPriorityPrefix(line: string): string {
  const level = /^\{"level":(\d+)/.exec(line)?.[1];
  return `<${syslogPriority(level === undefined ? 30 : Number(level))}>${line}`;
}

/**
 * True when stderr is connected to the journal: systemd sets JOURNAL_STREAM to the device and inode of the stream it
 * gave the service, and only if stderr is still that stream (not redirected, not a pipe a wrapper put in between) does
 * the prefix reach journald rather than a reader who would see it literally.
 */
export function stderrIsJournal(env: Readonly<Record<string, string | undefined>> = process.env,
  statStderr: () => Pick<BigIntStats, 'dev' | 'ino'> = () => fstatSync(2, { bigint: true })): boolean {
  const match = /^(\d+):(\d+)$/.exec(env.JOURNAL_STREAM ?? '');
  if (match === null) return false;
  try {
    const stat = statStderr();
    return stat.dev === BigInt(match[1] ?? '') && stat.ino === BigInt(match[2] ?? '');
  } catch {
    return false;
  }
}
