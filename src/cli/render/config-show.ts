import type { ConfigShowReport } from '../../config/config-show-report.js';
import type { TextStyle } from '../output/text-style.js';

export function renderConfigShow(report: ConfigShowReport, style: TextStyle): string {
  const width = Math.max(...report.entries.map((e) => e.key.length));
  const shown = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
  const lines = report.entries.map((e) => `  ${e.key.padEnd(width)}  ${shown(e.value)}${style.dim(`  ← ${e.source ?? 'unset'}`)}`);
  const origin = [report.origin.cloud ? `cloud ${report.origin.cloud}` : '', report.origin.cloudsFile ?? '', ...(report.origin.novaConfFiles ?? [])]
    .filter((part) => part !== '');
  return [style.bold('ferry configuration'), ...(origin.length ? [style.dim(`  read from ${origin.join(', ')}`)] : []), ...lines,
    ...(report.missingAuth.length ? [style.warn(`  credentials incomplete: missing ${report.missingAuth.join(', ')}`)] : [])].join('\n');
}
