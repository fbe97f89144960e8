import type { StoreOverview } from '../../glance/store-overview.js';
import type { TextStyle } from '../output/text-style.js';

export function renderStores(overview: StoreOverview, style: TextStyle): string {
  const width = Math.max(...overview.stores.map((s) => s.id.length), 5);
  const lines = overview.stores.map((s) => {
    const marks = [s.local ? style.good('local') : '', s.isDefault ? 'default' : '', s.readOnly ? style.warn('read-only') : '']
      .filter((m) => m !== '').join(', ');
    const backend = [s.type, s.pool ? `pool ${s.pool}` : '', s.fsid ? `fsid ${s.fsid}` : ''].filter((p) => p).join(', ');
    return `  ${s.id.padEnd(width)}  ${backend || style.dim('type not shown')}${marks ? `  [${marks}]` : ''}${s.description ? style.dim(`  ${s.description}`) : ''}`;
  });
  const local = overview.local === undefined
    ? style.dim('no local store: pass --store (or --fsid, matched against the fsid Glance ≥ 30 reports)')
    : `local store: ${overview.local} (${overview.stores.find((s) => s.id === overview.local)?.localWhy ?? ''})`;
  const typesNote = overview.source === 'GET /v2/info/stores' ? [style.dim('types and pools need GET /v2/info/stores/detail (admin)')] : [];
  return [`${style.bold('Glance stores')} ${style.dim(`(${overview.source})`)}`, ...lines, local, ...typesNote].join('\n');
}
