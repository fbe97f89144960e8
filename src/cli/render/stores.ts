import type { StoresReport } from '../../contract/stores-document.js';
import type { TextStyle } from '../output/text-style.js';

export function renderStores({ overview, answers }: StoresReport, style: TextStyle): string {
  const width = Math.max(...overview.stores.map((s) => s.id.length), 5);
  const lines = overview.stores.flatMap((s) => {
    const marks = [s.local ? style.good('local') : '', s.isDefault ? 'default' : '', s.readOnly ? style.warn('read-only') : '']
      .filter((m) => m !== '').join(', ');
    const backend = [s.type, s.pool ? `pool ${s.pool}` : '', s.fsid ? `fsid ${s.fsid}` : ''].filter((p) => p).join(', ');
    const answer = answers.find((a) => a.store === s.id);
    const verdict = answer?.answers === true ? style.good('answers') : answer?.answers === false ? style.bad('does not answer') : style.dim('not checked');
    return [
      `  ${s.id.padEnd(width)}  ${backend || style.dim('type not shown')}${marks ? `  [${marks}]` : ''}${s.description ? style.dim(`  ${s.description}`) : ''}`,
      `  ${' '.repeat(width)}  ${verdict}${answer ? style.dim(`: ${answer.why}`) : ''}`,
    ];
  });
  const local = overview.local === undefined
    ? style.dim('no local store: pass --store (or --fsid, matched against the fsid Glance ≥ 30 reports)')
    : `local store: ${overview.local} (${overview.stores.find((s) => s.id === overview.local)?.localWhy ?? ''})`;
  const typesNote = overview.source === 'GET /v2/info/stores'
    ? [style.dim(`types and pools need GET /v2/info/stores/detail: ${overview.sourceWhy ?? 'it was not read'}`)] : [];
  return [`${style.bold('Glance stores')} ${style.dim(`(${overview.source})`)}`, ...lines, local, ...typesNote].join('\n');
}
