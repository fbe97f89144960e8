import { inTraitFamilies } from '../../traits/trait-families.js';
import type { TraitsReportCommandReport } from '../../placement/traits-report-command-report.js';
import type { TextStyle } from '../output/text-style.js';
import { catalogueName, describeStorage, renderUnmapped } from './traits.js';

export function renderTraitsReport({ result, report, storage }: TraitsReportCommandReport, style: TextStyle): string {
  const who = `${style.bold(result.provider.name)} ${style.dim(result.provider.uuid)}`;
  const tries = result.attempts === 1 ? '' : ` after ${result.attempts - 1} generation conflict(s)`;
  const verdict = result.unchanged
    ? style.good(`unchanged: it already carries what ferry reports; nothing written${tries}`)
    : result.dryRun
      ? style.warn(`dry run: would add ${result.added.length}, remove ${result.removed.length}; nothing written`)
      : style.good(`updated${tries}: added ${result.added.length}, removed ${result.removed.length}, generation ${result.generation}`);
  const width = Math.max(0, ...[...result.added, ...result.removed].map((t) => t.length));
  const foreign = result.kept.filter((t) => t.startsWith('CUSTOM_') || !inTraitFamilies(t, report.decidedFamilies));
  return [
    `provider ${who}: ${verdict}`,
    style.dim(`checked against ${catalogueName(report.catalogueVersion)}; storage: ${describeStorage(storage)}`),
    ...result.added.map((t) => `  ${style.good('+')} ${t.padEnd(width)}  ${style.dim(report.reasons[t] ?? '')}`),
    ...result.removed.map((t) => `  ${style.bad('-')} ${t.padEnd(width)}  ${style.dim('no longer reported by ferry')}`),
    `  kept ${result.kept.length}` + (foreign.length === 0 ? '' : `, of which not ferry's to change: ${foreign.join(', ')}`),
    ...renderUnmapped(report.unmapped, report.catalogueVersion, style),
  ].join('\n');
}
