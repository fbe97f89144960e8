import type { HostExplanation } from '../../prefilter/explain-hosts.js';
import type { ExplainReport } from '../../prefilter/trait-request-report.js';
import type { TextStyle } from '../output/text-style.js';
import { describeFilters, imageLabel, renderNotes, renderTraitNeeds, renderUnmappedProperties } from './prefilter.js';

const MARK: Readonly<Record<HostExplanation['verdict'], string>> = {
  candidate: '✓', 'traits-match': '✓', traits: '✗', resources: '✗', 'not-returned': '?',
};

/**
 * What the request needs, then one line per host saying exactly what keeps it out, then the same grouped by cause
 * (on a cloud of hundreds of hosts, the tally is what an operator reads first), then what to do about each cause.
 */
export function renderExplain(report: ExplainReport, style: TextStyle): string {
  const { explained, result } = report;
  const hosts = explained.hosts;
  const resources = explained.resources;
  const count = hosts.filter((h) => h.candidate).length;
  const what = resources === undefined ? 'match the traits (resources not checked: no --resources)' : `can take it with ${resources}`;
  const names = hosts.map((h) => h.name);
  const nameWidth = Math.max(0, ...names.map((n) => n.length));
  const headline = hosts.length === 0 ? style.warn('no host to explain: Placement has no root provider')
    : style.bold(`${count} of ${hosts.length} host${hosts.length === 1 ? '' : 's'} ${what}`);
  return [
    ...renderTraitNeeds(imageLabel(report.image), result, style),
    resources === undefined ? style.dim('(no --resources: Placement was not asked for candidates)') : `and room for ${resources}`,
    ...renderUnmappedProperties(result.unmapped, style),
    '',
    headline,
    ...hosts.map((h) => {
      const mark = h.candidate ? style.good(MARK[h.verdict]) : h.verdict === 'not-returned' ? style.warn(MARK[h.verdict]) : style.bad(MARK[h.verdict]);
      return `  ${mark} ${h.name.padEnd(nameWidth)}  ${h.uuid}  ${shortReason(h, style)}`;
    }),
    ...renderCauses(report, style),
    ...renderNextSteps(report, style),
    '',
    style.dim(`filters: ${describeFilters(result, report.switches)}`),
    style.dim(`Placement ${explained.microversion}: GET /allocation_candidates?${explained.query}`),
    ...(explained.capacityNotRead > 0
      ? [style.dim(`${explained.capacityNotRead} more host(s) match the traits but were left out by Placement; their capacity was not read (name them with --provider)`)]
      : []),
    ...renderNotes(result.notes, style),
  ].join('\n');
}

function shortReason(host: HostExplanation, style: TextStyle): string {
  const child = host.parent === undefined ? '' : style.dim(` (a child of ${host.parent}: root traits are judged on the root)`);
  switch (host.verdict) {
    case 'candidate':
      return `candidate${child}`;
    case 'traits-match':
      return `has every required trait, none forbidden${child}`;
    case 'traits': {
      const parts = [
        ...(host.lacks.length === 0 ? [] : [`lacks ${host.lacks.map((g) => style.bold(g.trait)).join(', ')}`]),
        ...(host.hasForbidden.length === 0 ? [] : [`has forbidden ${host.hasForbidden.map((g) => style.bold(g.trait)).join(', ')}`]),
      ];
      return `${parts.join('; ')}${child}`;
    }
    case 'resources': {
      const short = (host.fit ?? []).filter((f) => !f.fits).map((f) => `${style.bold(f.resourceClass)} ${f.why ?? ''}`);
      return `not enough resources: ${short.join('; ')}${child}`;
    }
    case 'not-returned':
      return `traits match, but Placement left it out: not enough resources or not a root${child}`;
  }
}

/** Each trait or resource class that keeps hosts out, most hosts first, with why the request has the trait. */
function renderCauses(report: ExplainReport, style: TextStyle): string[] {
  const causes = new Map<string, { hosts: number; why: string }>();
  const add = (key: string, why: string): void => {
    const known = causes.get(key);
    causes.set(key, { hosts: (known?.hosts ?? 0) + 1, why });
  };
  for (const host of report.explained.hosts) {
    for (const gap of host.lacks) add(`${gap.trait} missing`, gap.reasons.join('; '));
    for (const gap of host.hasForbidden) add(`${gap.trait} present (forbidden)`, gap.reasons.join('; '));
    for (const fit of host.fit ?? []) if (!fit.fits) add(`${fit.resourceClass} short`, `asks ${fit.requested}`);
    if (host.verdict === 'not-returned') add('left out by Placement, cause not found', 'not enough resources or not a root');
  }
  if (causes.size === 0) return [];
  const rows = [...causes].sort((a, b) => b[1].hosts - a[1].hosts || (a[0] < b[0] ? -1 : 1));
  const width = Math.max(...rows.map(([key]) => key.length));
  return ['', 'What keeps hosts out:',
    ...rows.map(([key, { hosts, why }]) =>
      `  ${key.padEnd(width)}  on ${String(hosts).padStart(3)} host${hosts === 1 ? ' ' : 's'}  ${style.dim(why)}`)];
}

function renderNextSteps(report: ExplainReport, style: TextStyle): string[] {
  const hosts = report.explained.hosts;
  const lacking = hosts.some((h) => h.lacks.length > 0);
  const disabled = hosts.some((h) => h.hasForbidden.some((g) => g.trait === 'COMPUTE_STATUS_DISABLED'));
  const otherForbidden = hosts.some((h) => h.hasForbidden.some((g) => g.trait !== 'COMPUTE_STATUS_DISABLED'));
  const short = hosts.some((h) => h.verdict === 'resources' || h.verdict === 'not-returned');
  const steps = [
    ...(lacking ? [
      `a host that should have a missing trait: report its traits (${style.bold('ferry traits report --provider NAME')} on it), or fix its nova.conf / libvirt`,
      'a trait the request should not ask for: change or remove the image property or flavor extra spec named above (or turn that prefilter off)',
    ] : []),
    ...(disabled ? [`a disabled compute: ${style.bold('openstack compute service set --enable HOST nova-compute')}`] : []),
    ...(otherForbidden ? ['a forbidden trait: drop the trait:NAME=forbidden extra spec or image property, or the trait from the host'] : []),
    ...(short ? ['short of resources: a smaller flavor, free the host, or raise its allocation ratio; `openstack resource provider usage show UUID`'] : []),
  ];
  return steps.length === 0 ? [] : ['', 'Next:', ...steps.map((s) => `  - ${s}`)];
}
