// The soak's report: boots per minute, time to a clone by image kind, faults by kind, each invariant with its counts,
// alerts fired and cleared, the seed, the machine's load. Pure: numbers in, Markdown out.

export interface BootRecord {
  readonly kind: string;
  readonly route: string;
  readonly seconds: number;
  readonly ok: boolean;
}

export interface InvariantCount {
  readonly name: string;
  readonly checks: number;
  readonly violations: number;
}

export interface SoakReport {
  readonly seed: number;
  readonly minutes: number;
  readonly startedAt: string;
  readonly nodes: string;
  readonly boots: readonly BootRecord[];
  readonly faults: Readonly<Record<string, number>>;
  readonly jobs: Readonly<Record<string, number>>;
  readonly invariants: readonly InvariantCount[];
  readonly alerts: readonly { readonly alert: string; readonly fired: string; readonly cleared: string; readonly expected: string }[];
  readonly load: { readonly min: number; readonly mean: number; readonly max: number };
  readonly notes: readonly string[];
}

/** The p-th percentile (0-100) by nearest rank; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const fixed = (value: number): string => (Number.isNaN(value) ? '–' : value.toFixed(1));

export function renderReport(report: SoakReport): string {
  const passed = report.invariants.every((i) => i.violations === 0);
  const kinds = [...new Set(report.boots.map((b) => b.kind))].sort();
  const routes = [...new Set(report.boots.map((b) => b.route))].sort();
  const lines = [
    `### Soak, seed ${report.seed}, ${report.minutes} min (${report.startedAt}): ${passed ? 'every invariant held' : 'FAILED'}`,
    '',
    `${report.nodes}. ${report.boots.length} boots, ${(report.boots.length / report.minutes).toFixed(1)} per minute. `
      + `Machine load (1-min average) during the run: min ${report.load.min.toFixed(1)}, mean ${report.load.mean.toFixed(1)}, max ${report.load.max.toFixed(1)} on ${'2'} cores.`,
    '',
    '| image kind | boots | ok | p50 time to clone (s) | p99 (s) |',
    '|---|---|---|---|---|',
    ...kinds.map((kind) => {
      const ok = report.boots.filter((b) => b.kind === kind && b.ok).map((b) => b.seconds);
      return `| ${kind} | ${report.boots.filter((b) => b.kind === kind).length} | ${ok.length} | ${fixed(percentile(ok, 50))} | ${fixed(percentile(ok, 99))} |`;
    }),
    '',
    `Boots by route: ${routes.map((r) => `${r} ${report.boots.filter((b) => b.route === r).length}`).join(', ')}.`,
    '',
    `Faults injected: ${Object.entries(report.faults).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}. `
      + `Jobs: ${Object.entries(report.jobs).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}.`,
    '',
    '| invariant | checks | violations |',
    '|---|---|---|',
    ...report.invariants.map((i) => `| ${i.name} | ${i.checks} | ${i.violations} |`),
    '',
  ];
  if (report.alerts.length > 0) {
    lines.push('| alert | fired | cleared | expected |', '|---|---|---|---|',
      ...report.alerts.map((a) => `| ${a.alert} | ${a.fired} | ${a.cleared} | ${a.expected} |`), '');
  }
  for (const note of report.notes) lines.push(`- ${note}`);
  return `${lines.join('\n')}\n`;
}
