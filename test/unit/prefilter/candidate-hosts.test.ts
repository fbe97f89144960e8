import { describe, expect, it } from 'vitest';
import { parseAllocationCandidates, type AllocationCandidates } from '../../../src/placement/allocation-candidates.js';
import { candidateHosts } from '../../../src/prefilter/candidate-hosts.js';
import { loadExchange } from '../../helpers/fixtures.js';
import { HOSTS } from './prefilter-placement.js';

const recorded = (name: 'prefilter-candidates' | 'prefilter-candidates-1024' | 'prefilter-candidates-none'): AllocationCandidates =>
  parseAllocationCandidates(loadExchange('placement', name).body, 'GET /allocation_candidates');

const summary = (root: string, traits: string[] = [], parent: string | null = null): Record<string, unknown> => ({
  resources: { VCPU: { capacity: 8, used: 0 } }, traits, parent_provider_uuid: parent, root_provider_uuid: root,
});

describe('candidateHosts', () => {
  it('candidateHosts: recorded 512 MB answer → pf-host-a and pf-host-e, in Placement\'s order, with their sorted traits', () => {
    const hosts = candidateHosts(recorded('prefilter-candidates'));
    expect(hosts.map((h) => h.uuid)).toEqual([HOSTS.a.uuid, HOSTS.e.uuid]);
    expect(hosts[0]).toMatchObject({ providers: [HOSTS.a.uuid], allocationRequests: 1,
      traits: ['COMPUTE_ARCH_X86_64', 'COMPUTE_IMAGE_TYPE_QCOW2', 'COMPUTE_IMAGE_TYPE_RAW', 'CUSTOM_FERRY_PREFILTER_FIXTURE', 'HW_ARCH_X86_64'] });
    expect(hosts[1]?.resources.MEMORY_MB).toEqual({ capacity: 1536, used: 1024 });
  });

  it.each([
    { name: 'prefilter-candidates-1024' as const, hosts: [HOSTS.a.uuid] },
    { name: 'prefilter-candidates-none' as const, hosts: [] },
  ])('candidateHosts: recorded $name → $hosts.length host(s)', ({ name, hosts }) => {
    expect(candidateHosts(recorded(name)).map((h) => h.uuid)).toEqual(hosts);
  });

  it('candidateHosts: a tree (placement-and-traits.md §5.2, b + b-child in one candidate) is one host, its root, listing both', () => {
    const answer = parseAllocationCandidates({
      allocation_requests: [{ allocations: { b: { resources: { VCPU: 1 } }, 'b-child': { resources: { CUSTOM_IMG_SLOT: 1 } } } }],
      provider_summaries: { b: summary('b', ['COMPUTE_IMAGE_TYPE_RAW']), 'b-child': summary('b', ['COMPUTE_IMAGE_TYPE_QCOW2'], 'b') },
    }, 'test');
    expect(candidateHosts(answer)).toEqual([{ uuid: 'b', traits: ['COMPUTE_IMAGE_TYPE_RAW'], resources: { VCPU: { capacity: 8, used: 0 } },
      providers: ['b', 'b-child'], allocationRequests: 1 }]);
  });

  it('candidateHosts: resources only on a child still name the root as the host, root first', () => {
    const answer = parseAllocationCandidates({
      allocation_requests: [{ allocations: { 'b-child': { resources: { CUSTOM_IMG_SLOT: 1 } } } }],
      provider_summaries: { b: summary('b'), 'b-child': summary('b', [], 'b') },
    }, 'test');
    expect(candidateHosts(answer).map((h) => [h.uuid, h.providers])).toEqual([['b', ['b', 'b-child']]]);
  });

  it('candidateHosts: a sharing provider (MISC_SHARES_VIA_AGGREGATE) is listed under each host, never as a host', () => {
    const answer = parseAllocationCandidates({
      allocation_requests: [
        { allocations: { a: { resources: { VCPU: 1 } }, nfs: { resources: { DISK_GB: 10 } } } },
        { allocations: { c: { resources: { VCPU: 1 } }, nfs: { resources: { DISK_GB: 10 } } } },
        { allocations: { a: { resources: { VCPU: 1, DISK_GB: 10 } } } },
      ],
      provider_summaries: { a: summary('a'), c: summary('c'), nfs: summary('nfs', ['MISC_SHARES_VIA_AGGREGATE']) },
    }, 'test');
    expect(candidateHosts(answer).map((h) => [h.uuid, h.providers, h.allocationRequests])).toEqual([
      ['a', ['a', 'nfs'], 2], ['c', ['c', 'nfs'], 1],
    ]);
  });

  it('candidateHosts: a provider without a summary is its own root', () => {
    const answer = parseAllocationCandidates({ allocation_requests: [{ allocations: { x: { resources: { VCPU: 1 } } } }], provider_summaries: {} }, 'test');
    expect(candidateHosts(answer)).toEqual([{ uuid: 'x', traits: [], resources: {}, providers: ['x'], allocationRequests: 1 }]);
  });
});
