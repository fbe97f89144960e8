import { formatAmount } from '../../prefilter/check-resource-fit.js';
import type { Candidate } from '../../prefilter/find-candidates.js';
import { parseResources } from '../../prefilter/parse-resources.js';
import type { CandidatesReport } from '../../prefilter/trait-request-report.js';
import type { TextStyle } from '../output/text-style.js';
import { imageLabel, renderNotes, renderTraitNeeds, renderUnmappedProperties } from './prefilter.js';

export function renderCandidates(report: CandidatesReport, style: TextStyle): string {
  const { list, result } = report;
  const label = imageLabel(report.image);
  const classes = parseResources(list.resources).map((r) => r.resourceClass);
  const query = [style.dim(`Placement ${list.microversion}: GET /allocation_candidates?${list.query}`)];
  if (list.candidates.length === 0) {
    return [
      style.bad(`No host can take ${label} with ${list.resources}: Placement returned no allocation candidate.`),
      '',
      ...renderTraitNeeds('the request', result, style),
      ...renderUnmappedProperties(result.unmapped, style),
      '',
      ...query,
      '',
      `Why: ${style.bold(`ferry explain --image ${report.image.id} --resources ${list.resources}`)} names, host by host, the missing trait or resource.`,
      ...renderNotes(result.notes, style),
    ].join('\n');
  }
  const count = list.candidates.length;
  const names = list.candidates.map((c) => c.name ?? '(deleted)');
  const width = Math.max(...names.map((n) => n.length));
  const truncated = list.limit !== undefined && list.allocationRequests >= list.limit
    ? [style.warn(`limit ${list.limit} reached: Placement may have more candidates`)] : [];
  return [
    style.bold(`${count} host${count === 1 ? '' : 's'} can take ${label} with ${list.resources}`),
    ...list.candidates.map((c, i) => `  ${style.good((names[i] ?? '').padEnd(width))}  ${c.uuid}  ${style.dim(describeRoom(c, classes))}`),
    ...truncated,
    '',
    ...renderTraitNeeds('the request', result, style),
    ...renderUnmappedProperties(result.unmapped, style),
    '',
    ...query,
    ...renderNotes(result.notes, style),
  ].join('\n');
}

/** `VCPU 31/32 free, MEMORY_MB 15360/15872 free` for the requested classes the root provides itself. */
function describeRoom(candidate: Candidate, classes: readonly string[]): string {
  const parts = classes.flatMap((cls) => {
    const r = candidate.resources[cls];
    return r === undefined ? [] : [`${cls} ${formatAmount(Math.max(0, r.capacity - r.used))}/${formatAmount(r.capacity)} free`];
  });
  const others = candidate.providers.length - 1;
  if (others > 0) parts.push(`+${others} other provider${others === 1 ? '' : 's'} in the allocation`);
  return parts.join(', ');
}
