import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { stderrIsJournal, syslogPriority, withPriorityPrefix } from '../../../src/logging/journald-priority.js';
import { createLogger } from '../../../src/logging/logger.js';

// Under journald each log line carries its priority as `<N>` (SyslogLevelPrefix=), so `journalctl -p warning` picks
// out warnings and errors. Checked against the real journald in test/integration/systemd/agent-restart.test.ts.

function capture(journald: boolean): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const destination = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(chunk.toString()); done(); } });
  return { lines, logger: createLogger({ level: 'trace', destination, journald }) };
}

describe('journald priorities', () => {
  it('pino levels map to syslog priorities: fatal 2, error 3, warn 4, info 6, debug and trace 7', () => {
    expect([60, 50, 40, 30, 20, 10].map(syslogPriority)).toEqual([2, 3, 4, 6, 7, 7]);
  });

  it('every line of the logger gets its prefix, redaction unchanged', () => {
    const { lines, logger } = capture(true);
    logger.fatal('f');
    logger.error({ token: 'gAAAA-secret' }, 'e');
    logger.warn('w');
    logger.info('i');
    logger.debug('d');
    logger.trace('t');
    expect(lines.map((line) => /^<(\d)>\{"level":/.exec(line)?.[1])).toEqual(['2', '3', '4', '6', '7', '7']);
    expect(lines[1]).toContain('"token":"<redacted>"');
    expect(lines[1]).not.toContain('gAAAA-secret');
  });

  it('no prefix when not under journald (a terminal or a file would show it literally)', () => {
    const { lines, logger } = capture(false);
    logger.warn('w');
    expect(lines[0]).toMatch(/^\{"level":40,/);
  });

  it('a line not written by pino (no level first) counts as info', () => {
    expect(withPriorityPrefix('plain\n')).toBe('<6>plain\n');
  });

  it('stderr is the journal only when JOURNAL_STREAM names its device and inode', () => {
    const stat = () => ({ dev: 25n, ino: 123456n });
    expect(stderrIsJournal({ JOURNAL_STREAM: '25:123456' }, stat)).toBe(true);
    expect(stderrIsJournal({ JOURNAL_STREAM: '25:999' }, stat)).toBe(false); // stderr redirected since (e.g. 2>file)
    expect(stderrIsJournal({}, stat)).toBe(false);
    expect(stderrIsJournal({ JOURNAL_STREAM: 'junk' }, stat)).toBe(false);
    expect(stderrIsJournal({ JOURNAL_STREAM: '25:123456' }, () => { throw new Error('EBADF'); })).toBe(false);
  });
});
