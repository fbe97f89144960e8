import type { UnmappedValue } from '../../traits/trait-findings.js';
import type { SkippedDomcaps, TraitsCommandReport, TraitsStorage } from '../../traits/traits-command-report.js';
import type { TextStyle } from '../output/text-style.js';

export function renderTraits({ report, storage, skipped }: TraitsCommandReport, style: TextStyle): string {
  const arch = report.hostArch === undefined ? 'host arch unknown' : `arch ${report.hostArch}`;
  const from = report.domainCapabilities.length === 0 ? 'no domain capabilities' : report.domainCapabilities.join(', ');
  const width = Math.max(0, ...report.traits.map((t) => t.length));
  return [
    style.bold(`${report.traits.length} traits for a ${report.virtType} host, ${arch}`) +
      ` ${style.dim(`(${catalogueName(report.catalogueVersion)}; ${from})`)}`,
    `storage: ${describeStorage(storage)}`,
    '',
    ...report.traits.map((trait) => `  ${trait.padEnd(width)}  ${style.dim(report.reasons[trait] ?? '')}`),
    ...renderUnmapped(report.unmapped, report.catalogueVersion, style),
    ...renderSkipped(skipped, style),
  ].join('\n');
}

export function catalogueName(version: string): string {
  return version === 'placement' ? "the target Placement's trait list" : `os-traits ${version}`;
}

export function describeStorage(storage: TraitsStorage): string {
  const parts = [
    `images_type=${storage.imagesType}`,
    `force_raw_images=${String(storage.forceRawImages)}`,
    ...(storage.imagesTypeMapping ? [`images_type_mapping=${storage.imagesTypeMapping}`] : []),
    ...(storage.imageTypeExcludeList.length > 0 ? [`image_type_exclude_list=${storage.imageTypeExcludeList.join(',')}`] : []),
    `virt_type=${storage.virtType}`,
  ];
  return parts.join(', ');
}

export function renderUnmapped(unmapped: readonly UnmappedValue[], catalogueVersion: string, style: TextStyle): string[] {
  if (unmapped.length === 0) return [];
  const width = Math.max(...unmapped.map((u) => u.value.length));
  return ['', style.warn(`unmapped (no trait in ${catalogueName(catalogueVersion)}, so not reported):`),
    ...unmapped.map((u) => `  ${u.value.padEnd(width)}  ${u.why} ${style.dim(`(${u.source})`)}`)];
}

function renderSkipped(skipped: readonly SkippedDomcaps[], style: TextStyle): string[] {
  if (skipped.length === 0) return [];
  return ['', style.warn('arches left out (virsh refused their domain capabilities; nova drops them too):'),
    ...skipped.map((s) => `  ${s.arch}  ${s.error} ${style.dim(`(${s.command})`)}`)];
}
