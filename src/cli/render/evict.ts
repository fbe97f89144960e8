import { formatBytes } from '../../fleet/store-budget.js';
import { FENCE_HOLD_MS } from '../../fleet/copy-fence.js';
import type { EvictItem, EvictReport } from '../../fleet/evict-report.js';
import { formatAge, KEEP_REASONS, type KeepReason } from '../../evict/plan-eviction.js';
import type { TextStyle } from '../output/text-style.js';
import { table } from './prewarm.js';

/** Why a copy stays, in words (evict's plan, status --usage). */
export const KEEP_WORDS: Readonly<Record<KeepReason, string>> = {
  'not-active': 'not active', importing: 'being imported', 'in-use': 'in use (clones)', 'clones-unknown': 'clones not listable',
  'not-in-pool': 'not in the pool', 'last-copy': 'the last copy', pinned: 'pinned', fenced: 'another eviction\'s', 'not-idle': 'not idle',
  'not-owned': 'another project\'s (ferry may not remove it)', 'under-budget': 'not needed for the budget',
};

/** An image as the eviction's and usage's tables name it: its name and the id's start, or the whole id when it has no name. */
export function imageLabel(image: { readonly imageId: string; readonly imageName: string | null }, style: TextStyle): string {
  return image.imageName === null ? image.imageId : `${image.imageName} ${style.dim(image.imageId.slice(0, 8))}`;
}

/** The plan as a table (image, size, last used, clones, decision and why), then the budget and what kept it from going lower. */
export function renderEvict(report: EvictReport, style: TextStyle): string {
  const chosen = report.items.filter((item) => item.action === 'evict').length;
  const head = `${style.bold('evict')} ${report.store} (pool ${report.pool})${report.dryRun ? style.warn(' · dry run: nothing removed') : ''}`
    + ` · ${chosen} of ${report.items.length} cop${report.items.length === 1 ? 'y' : 'ies'} chosen · idle means ${formatAge(report.idleMs)}`;
  const now = report.plannedAtMs;
  const rows = report.items.map((item) => [
    imageLabel(item, style),
    formatBytes(item.bytes),
    item.lastUsedMs === undefined ? style.dim('never seen') : `${formatAge(now - item.lastUsedMs)} ago`,
    String(item.clones),
    decision(item, style),
    item.outcomeDetail ?? item.detail,
  ]);
  const lines = [head, '', report.items.length === 0 ? style.dim('  no copy of any image in this store')
    : table(['IMAGE', 'SIZE', 'LAST USED', 'CLONES', 'DECISION', 'WHY'], rows), '', budgetLine(report, style)];
  const kept = KEEP_REASONS.filter((reason) => reason !== 'under-budget' && report.budget.kept[reason].copies > 0)
    .map((reason) => `${report.budget.kept[reason].copies} ${KEEP_WORDS[reason]} (${formatBytes(report.budget.kept[reason].bytes)})`);
  if (kept.length > 0) lines.push(`kept: ${kept.join(', ')}`);
  const notOwned = report.budget.kept['not-owned'];
  if (report.budget.verdict === 'unmet' && notOwned.bytes > 0) {
    lines.push(style.warn(`${formatBytes(notOwned.bytes)} of what stays is other projects' copies ferry's account may not remove: `
      + '--remove-owner PROJECT (an account that may) would take them (docs/evict.md, "Whose copies may go")'));
  }
  lines.push(...fencesLeftLines(report.fencesLeft, style));
  if (report.otherBytes > 0) lines.push(style.dim(`the pool also holds ${formatBytes(report.otherBytes)} that is no copy Glance lists in ${report.store}`
    + (report.trashBytes > 0 ? ` (${formatBytes(report.trashBytes)} of it in its trash)` : '')));
  return lines.join('\n');
}

/** The warning for fences a run could not lift, a line per fence (evict's text, and sync's per store: `store` names it). */
export function fencesLeftLines(fencesLeft: EvictReport['fencesLeft'], style: TextStyle, store?: string): string[] {
  if (fencesLeft.length === 0) return [];
  return [style.warn(`warning: ${store === undefined ? '' : `${store}: `}${fencesLeft.length} fence${fencesLeft.length === 1 ? '' : 's'} could not be lifted; `
    + `each holds its copy until it runs out (${FENCE_HOLD_MS / 1000} s after its last look):`),
  ...fencesLeft.map((left) => style.warn(`  ${left.imageId} (${left.rbdImage}): ${left.detail}`))];
}

function decision(item: EvictItem, style: TextStyle): string {
  if (item.action === 'keep') return style.dim(`keep: ${KEEP_WORDS[item.reason as KeepReason]}`);
  switch (item.outcome) {
    case undefined:
      return style.warn('evict');
    case 'evicted':
      return style.good('evicted');
    case 'kept':
      return style.warn(`kept: ${KEEP_WORDS[item.outcomeReason ?? 'fenced']}`);
    case 'trashed':
      return style.bad('trashed (no space freed)');
    case 'gone':
      return style.dim('gone already');
    case 'failed':
      return style.bad('failed');
    case 'forbidden':
      return style.bad('forbidden (403)');
  }
}

function budgetLine({ budget, dryRun }: EvictReport, style: TextStyle): string {
  const others = budget.othersBytes > 0 ? `, ${formatBytes(budget.afterBytes - budget.othersBytes)} with the ${formatBytes(budget.othersBytes)} `
    + 'another eviction run takes' : '';
  const after = `${formatBytes(budget.afterBytes)} ${dryRun ? 'after the plan' : 'after'}${others}`;
  switch (budget.verdict) {
    case 'none':
      return `pool ${formatBytes(budget.usedBytes)} → ${after} (no budget: every idle copy goes)`;
    case 'under':
      return style.good(`pool ${formatBytes(budget.usedBytes)}, under its budget ${formatBytes(budget.budgetBytes ?? 0)} (${budget.budget?.text ?? ''}): nothing to do`);
    case 'met':
      return style.good(`pool ${formatBytes(budget.usedBytes)} → ${after}: under its budget ${formatBytes(budget.budgetBytes ?? 0)} (${budget.budget?.text ?? ''})`);
    case 'unmet':
      return style.bad(`pool ${formatBytes(budget.usedBytes)} → ${after}: still ${formatBytes(budget.shortfallBytes)} over its budget `
        + `${formatBytes(budget.budgetBytes ?? 0)} (${budget.budget?.text ?? ''}); what is left cannot go:`);
  }
}
