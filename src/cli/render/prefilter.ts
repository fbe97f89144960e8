import type { PrefilterResult, UnmappedProperty } from '../../prefilter/prefilter-result.js';
import type { FilterSwitch, FilterSwitches, PrefilterReport } from '../../prefilter/trait-request-report.js';
import type { TextStyle } from '../output/text-style.js';
import { catalogueName } from './traits.js';

export function renderPrefilter(report: PrefilterReport, style: TextStyle): string {
  const { result } = report;
  return [
    ...renderTraitNeeds(imageLabel(report.image), result, style),
    ...renderUnmappedProperties(result.unmapped, style),
    '',
    `filters: ${describeFilters(result, report.switches)}`,
    `names checked against ${catalogueName(report.catalogueVersion)}`,
    `query for Placement ${result.microversion}:`,
    `  ${result.query === '' ? style.dim('(no trait parameters)') : result.query}`,
    ...renderNotes(report.notes, style),
  ].join('\n');
}

export function imageLabel(image: { readonly id: string; readonly name: string | null }): string {
  return image.name === null || image.name === '' ? `image ${image.id}` : `image ${image.id} (${image.name})`;
}

/**
 * The request as a list an operator reads top to bottom: what the compute node must have (and must not have), then
 * the unsuffixed group, each trait with the reasons the request has it.
 */
export function renderTraitNeeds(label: string, result: PrefilterResult, style: TextStyle): string[] {
  const rows: [string, string][] = [
    ...result.root_required.map((t): [string, string] => [t, t]),
    ...result.root_forbidden.map((t): [string, string] => [`not ${t}`, t]),
  ];
  const group: [string, string][] = [
    ...result.required.map((t): [string, string] => [t, t]),
    ...result.forbidden.map((t): [string, string] => [`not ${t}`, t]),
  ];
  const width = Math.max(0, ...[...rows, ...group].map(([shown]) => shown.length));
  const line = ([shown, trait]: [string, string]): string =>
    `  ${shown.padEnd(width)}  ${style.dim((result.reasons[trait] ?? []).join('; '))}`;
  const required = result.root_required.length;
  const forbidden = result.root_forbidden.length;
  return [
    style.bold(`${label}: the compute node must have ${required} trait${required === 1 ? '' : 's'}` +
      `${forbidden === 0 ? '' : ` and must not have ${forbidden}`}`),
    ...rows.map(line),
    ...(group.length === 0 ? [] : ['and, on the providers of the resources (flavor and image trait: entries):', ...group.map(line)]),
  ];
}

export function renderUnmappedProperties(unmapped: readonly UnmappedProperty[], style: TextStyle): string[] {
  if (unmapped.length === 0) return [];
  const shown = unmapped.map((u) => `${u.property}=${u.value}`);
  const width = Math.max(...shown.map((s) => s.length));
  return ['', style.warn('not turned into traits (Placement does not check these):'),
    ...unmapped.map((u, i) => `  ${(shown[i] ?? '').padEnd(width)}  ${u.reason}`)];
}

export function describeFilters(result: PrefilterResult, switches: FilterSwitches): string {
  const state = (name: string, applied: PrefilterResult['filters']['image_type'], sw: FilterSwitch | undefined): string => {
    const from = sw === undefined ? '' : ` (${sw.on ? 'on' : 'off'}: ${sw.source})`;
    return `${name} ${applied === 'skipped' ? 'skipped (boot from volume)' : applied}${from}`;
  };
  return [
    state('image-type', result.filters.image_type, switches.imageType),
    state('image-metadata', result.filters.image_metadata, switches.imageMetadata),
    state('compute-status', result.filters.compute_status, undefined),
  ].join(', ');
}

export function renderNotes(notes: readonly string[], style: TextStyle): string[] {
  return notes.length === 0 ? [] : ['', ...notes.map((note) => style.warn(`note: ${note}`))];
}
