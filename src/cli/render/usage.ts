import { formatBytes } from '../../fleet/store-budget.js';
import { formatAge, KEEP_REASONS } from '../../evict/plan-eviction.js';
import { isStoreUsageError, type UsageReport } from '../../evict/read-usage.js';
import type { StoreUsageSummary } from '../../evict/usage-report.js';
import type { TextStyle } from '../output/text-style.js';
import { table } from './prewarm.js';
import { imageLabel, KEEP_WORDS } from './evict.js';

/** `ferry status --usage`: each store against its budget, then every copy (image × store) with its size, clones and last use. */
export function renderUsage(report: UsageReport, style: TextStyle): string {
  const now = report.readAtMs;
  const storeRows = report.stores.map((entry) => (isStoreUsageError(entry)
    ? [entry.store, style.dim('?'), style.dim('?'), style.dim('?'), style.bad(`not read: ${entry.error.code}`)]
    : [entry.store, entry.pool, formatBytes(entry.usedBytes), budgetText(entry), verdictText(entry, style)]));
  const lines = [table(['STORE', 'POOL', 'USED', 'BUDGET', 'STATE'], storeRows)];
  for (const entry of report.stores) {
    if (isStoreUsageError(entry)) {
      lines.push(style.bad(`${entry.store}: ${entry.error.message}`));
      continue;
    }
    const kept = KEEP_REASONS.filter((reason) => entry.kept[reason].copies > 0)
      .map((reason) => `${entry.kept[reason].copies} ${KEEP_WORDS[reason]} (${formatBytes(entry.kept[reason].bytes)})`);
    const other = entry.otherBytes > 0 ? `; ${formatBytes(entry.otherBytes)} is no copy Glance lists here`
      + (entry.trashBytes > 0 ? ` (${formatBytes(entry.trashBytes)} in the trash)` : '') : '';
    lines.push(style.dim(`${entry.store}: ${formatBytes(entry.evictableBytes)} could go now (copies idle ≥ ${formatAge(entry.idleMs)})`
      + `${kept.length > 0 ? `; kept: ${kept.join(', ')}` : ''}${other}`));
  }
  const copies = report.stores.flatMap((entry) => (isStoreUsageError(entry) ? [] : entry.copies));
  lines.push('');
  if (copies.length === 0) {
    lines.push(style.dim('  no copy of any image in these stores'));
  } else {
    lines.push(table(['IMAGE', 'STORE', 'SIZE', 'CLONES', 'LAST USED'], copies.map((copy) => [
      imageLabel(copy, style),
      copy.store,
      copy.inPool === 'yes' ? formatBytes(copy.bytes) : style.warn(copy.inPool === 'absent' ? 'not in pool' : 'unreadable'),
      copy.trashedClones > 0 ? `${copy.clones} (${copy.trashedClones} in trash)` : String(copy.clones),
      copy.lastUsedMs === undefined ? style.dim('never seen') : `${formatAge(now - copy.lastUsedMs)} ago`,
    ])));
  }
  lines.push(...ignoredPinLines(report, style));
  return lines.join('\n');
}

/** A note per copy whose image's own pin does not count (its owner is not a pin owner): why it may go all the same. */
function ignoredPinLines(report: UsageReport, style: TextStyle): string[] {
  const notes = report.stores.flatMap((entry) => (isStoreUsageError(entry) ? [] : entry.copies.flatMap((copy) => {
    const ignored = entry.ignoredPins.get(copy.imageId);
    return ignored === undefined ? [] : [`  ${imageLabel(copy, style)} in ${copy.store}: ${ignored}`];
  })));
  if (notes.length === 0) return [];
  return ['', style.warn('pins that do not count (only a pin owner\'s image pins itself: --pin-owner PROJECT, or the policy\'s pin_owners:):'),
    ...notes.map((note) => style.warn(note))];
}

function budgetText(entry: StoreUsageSummary): string {
  if (entry.budgetBytes === undefined) return 'no budget';
  const share = Math.round((entry.usedBytes / entry.budgetBytes) * 100);
  return `${formatBytes(entry.budgetBytes)} (${entry.budget?.text ?? ''}) ${share}%`;
}

function verdictText(entry: StoreUsageSummary, style: TextStyle): string {
  switch (entry.verdict) {
    case 'none':
      return style.dim('no budget');
    case 'under':
      return style.good('under budget');
    case 'over':
      return style.warn(`over by ${formatBytes(entry.overBytes)}: ferry evict can meet it`);
    case 'unmet':
      return style.bad(`over by ${formatBytes(entry.overBytes)}: cannot be met`);
  }
}
