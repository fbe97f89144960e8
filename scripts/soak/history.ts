// The soak's event history: one JSON line per event (a Jepsen-style history), appended as the run goes, so that a run
// that dies still leaves it. A failing run prints its seed and the events around each failure.
import { appendFileSync, writeFileSync } from 'node:fs';

export interface HistoryEntry {
  /** Seconds since the run started. */
  readonly t: number;
  readonly type: string;
  readonly [field: string]: unknown;
}

export class History {
  readonly entries: HistoryEntry[] = [];

  constructor(readonly file: string, private readonly startedAt: number) {
    writeFileSync(file, '');
  }

  now(): number {
    return Math.round((Date.now() - this.startedAt) / 100) / 10;
  }

  add(type: string, fields: Record<string, unknown> = {}): HistoryEntry {
    const entry = { t: this.now(), type, ...fields };
    this.entries.push(entry);
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
    return entry;
  }
}

/** The entries within `window` seconds of `t` (boots, faults, jobs): what to read first about a failure at t. */
export function around(entries: readonly HistoryEntry[], t: number, window = 30): HistoryEntry[] {
  return entries.filter((entry) => Math.abs(entry.t - t) <= window);
}

/** What a failing run prints: the seed to replay it, each violation, and the events around it. */
export function failureText(seed: number, minutes: number, violations: readonly { invariant: string; detail: string; t: number }[],
  entries: readonly HistoryEntry[], window = 30): string {
  const lines = [`SOAK FAILED: ${violations.length} violation(s). Replay: npm run soak -- --minutes ${minutes} --seed ${seed}`];
  for (const violation of violations.slice(0, 10)) {
    lines.push('', `[${violation.t} s] ${violation.invariant}: ${violation.detail}`, `  events within ${window} s:`);
    for (const entry of around(entries, violation.t, window).slice(-40)) lines.push(`    ${JSON.stringify(entry)}`);
  }
  if (violations.length > 10) lines.push('', `… and ${violations.length - 10} more (the history file has every event)`);
  return lines.join('\n');
}
