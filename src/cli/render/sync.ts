import { formatBytes } from '../../fleet/store-budget.js';
import type { SyncOutcome } from '../../contract/sync-document.js';
import type { WatchPass } from '../../sync/watch-sync.js';
import type { TextStyle } from '../output/text-style.js';
import { fencesLeftLines } from './evict.js';
import { renderPrewarm, seconds, table } from './prewarm.js';

export function renderSync({ report, watch }: SyncOutcome, style: TextStyle): string {
  const lines: string[] = [];
  if (watch !== undefined) {
    lines.push(`${style.bold('watch')} ended after ${watch.passes} pass${watch.passes === 1 ? '' : 'es'} (${watch.uncleanPasses} unclean)`
      + (watch.lastError ? `; last error ${watch.lastError.code}: ${watch.lastError.message}` : ''), '');
  }
  if (report === undefined) return lines.concat(style.warn('no pass completed')).join('\n');
  const verdict = report.converged ? style.good('converged') : report.result.dryRun ? style.warn('drift (dry run)') : style.bad('not converged');
  lines.push(`${style.bold('sync')} ${report.policy}: ${verdict} · ${report.wanted} (image, store) pairs wanted · drift ${report.driftBefore} before, `
    + `${report.driftAfter} after`, '',
  table(['placement', 'images', 'stores', 'drift'], report.placements.map((p) =>
    [p.name, `${p.images}${p.unresolved > 0 ? style.bad(` +${p.unresolved} unresolved`) : ''}`, p.stores.join(', '), String(p.drift)])),
  '', renderPrewarm(report.result, style));
  if (report.budgets.length > 0) {
    lines.push('', table(['store', 'pool', 'budget', 'before', 'after', 'verdict', 'evicted'], report.budgets.map((entry) => entry.report === undefined
      ? [entry.store, '', '', '', '', style.bad(`${entry.error.code}: ${entry.error.message}`), '']
      : [entry.store, entry.report.pool, entry.report.budget.budget?.text ?? '', formatBytes(entry.report.budget.usedBytes),
        formatBytes(entry.report.budget.afterBytes), entry.report.budget.verdict === 'unmet' ? style.bad('unmet') : entry.report.budget.verdict,
        String(entry.report.counts.evicted)])));
    for (const entry of report.budgets) lines.push(...fencesLeftLines(entry.report?.fencesLeft ?? [], style, entry.store));
  }
  return lines.join('\n');
}

/** The one log line per watch pass. */
export function describePass(pass: WatchPass): string {
  const next = `next in ${seconds(pass.nextInMs)}${pass.clean ? '' : ' (backing off)'}`;
  const policy = pass.policyError ? ` · policy not reloaded: ${pass.policyError.message}` : '';
  if (pass.report === undefined) {
    return `pass ${pass.number} · error ${pass.error?.code ?? '?'}: ${pass.error?.message ?? ''} · ${next}${policy}`;
  }
  const { report } = pass;
  const c = report.result.counts;
  return `pass ${pass.number} · ${report.wanted} wanted · drift ${report.driftBefore} → ${report.driftAfter} · copied ${c.copied + c.joined}`
    + ` · failed ${c.failed} · skipped ${c.skipped} · ${seconds(pass.elapsedMs)} · ${next}${policy}`;
}
