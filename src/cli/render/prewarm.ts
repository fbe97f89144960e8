import type { PrewarmItemReport, PrewarmReport } from '../../fleet/prewarm-report.js';
import type { TextStyle } from '../output/text-style.js';

const OUTCOME_ROWS = [
  { outcome: 'copied', label: 'copied' },
  { outcome: 'joined', label: 'copied by another import' },
  { outcome: 'present', label: 'already there' },
  { outcome: 'failed', label: 'failed' },
  { outcome: 'skipped', label: 'skipped' },
  { outcome: 'interrupted', label: 'interrupted' },
] as const;

const PLAN_ROWS = [
  { state: 'present', label: 'present' },
  { state: 'copying', label: 'copying (someone else)' },
  { state: 'failed-earlier', label: 'failed earlier' },
  { state: 'missing', label: 'missing' },
  { state: 'not-copyable', label: 'not copyable' },
] as const;

/** The end of a prewarm: counts per outcome with durations, then every item that needs a look, with its reason. */
export function renderPrewarm(report: PrewarmReport, style: TextStyle): string {
  if (report.dryRun) return renderPlan(report, style);
  const images = new Set(report.items.map((item) => item.imageId)).size;
  const lines = [
    `${style.bold('prewarm')} ${images} image${images === 1 ? '' : 's'} into ${report.stores.join(', ')}: ${seconds(report.elapsedMs)}`
      + style.dim(` (one request per ${report.requestMode}, ${report.concurrency} at once, ${report.perStoreConcurrency} per store)`),
    '',
    table(['outcome', 'count', 'p50', 'max'], OUTCOME_ROWS.map(({ outcome, label }) => {
      const durations = report.items.filter((item) => item.outcome === outcome && item.elapsedMs !== undefined).map((item) => item.elapsedMs ?? 0);
      const paint = (t: string): string => (outcome === 'failed' && report.counts.failed > 0 ? style.bad(t)
        : outcome === 'interrupted' && report.counts.interrupted > 0 ? style.warn(t) : t);
      return [paint(label), String(report.counts[outcome]), durations.length ? seconds(median(durations)) : '', durations.length ? seconds(Math.max(...durations)) : ''];
    })),
  ];
  const listed = (title: string, items: readonly PrewarmItemReport[], paint: (text: string) => string): void => {
    if (items.length === 0) return;
    lines.push('', paint(`${title}:`), ...items.map((item) => `  ${describeItem(item)}: ${item.reason}${item.code ? style.dim(` (${item.code})`) : ''}`));
  };
  listed('failed', report.items.filter((item) => item.outcome === 'failed'), (t) => style.bad(t));
  listed('skipped', report.items.filter((item) => item.outcome === 'skipped'), (t) => style.warn(t));
  if (report.aborted) {
    const notStarted = report.items.filter((item) => item.outcome === 'interrupted' && item.runningInGlance !== true).length;
    lines.push('', style.warn(`interrupted: ${notStarted} cop${notStarted === 1 ? 'y' : 'ies'} not started.`));
    if (report.runningInGlance.length > 0) {
      lines.push(style.warn('still running inside Glance (they go on; run the same command again to pick them up):'),
        ...report.runningInGlance.map((copy) => `  ${copy.imageName ?? copy.imageId} (${copy.imageId}) → ${copy.stores.join(', ')}  task ${copy.taskId}`));
    }
  }
  if (!report.storeTypesKnown) {
    lines.push('', style.dim('store types unknown (GET /v2/info/stores/detail is admin-only): non-raw images were not held back from rbd stores'));
  }
  return lines.join('\n');
}

/** --dry-run: the plan, counts per state, then every (image, store) with its state and why. */
function renderPlan(report: PrewarmReport, style: TextStyle): string {
  const work = report.items.filter((item) => item.action === 'copy' || item.action === 'join').length;
  return [
    `${style.bold('plan')} (dry run, nothing sent): ${work} cop${work === 1 ? 'y' : 'ies'} to make or join into ${report.stores.join(', ')}`,
    '',
    table(['state', 'count'], PLAN_ROWS.map(({ state, label }) => [label, String(report.plan[state])])),
    '',
    table(['image', 'store', 'state', 'action', 'why'], report.items.map((item) =>
      [item.imageName ?? item.imageId, item.store, item.planned, item.action, item.reason])),
  ].join('\n');
}

export function describeItem(item: Pick<PrewarmItemReport, 'imageId' | 'imageName' | 'store'>): string {
  return `${item.imageName ?? item.imageId}${item.imageName === null ? '' : ` (${item.imageId.slice(0, 8)})`} → ${item.store}`;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

/** Left-aligned columns; cells may carry colour codes, so widths count visible characters. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  // ANSI colour sequences take no room on screen.
  // eslint-disable-next-line no-control-regex
  const visible = (text: string): number => text.replace(/\u001b\[[0-9;]*m/g, '').length;
  const widths = headers.map((header, i) => Math.max(visible(header), ...rows.map((row) => visible(row[i] ?? ''))));
  const line = (cells: readonly string[]): string =>
    `  ${cells.map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visible(cell)))).join('  ')}`.trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}
