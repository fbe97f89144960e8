import { describe, expect, it } from 'vitest';
import type { ResourceFit } from '../../../src/prefilter/check-resource-fit.js';
import { explainCandidate } from '../../../src/prefilter/explain-candidate.js';
import { judgeHost } from '../../../src/prefilter/judge-host.js';

const request = {
  root_required: ['COMPUTE_IMAGE_TYPE_QCOW2', 'HW_ARCH_X86_64'],
  root_forbidden: ['COMPUTE_STATUS_DISABLED'],
  reasons: {
    COMPUTE_IMAGE_TYPE_QCOW2: ['image disk_format=qcow2 (image-type prefilter)'],
    HW_ARCH_X86_64: ['image hw_architecture=x86_64 (image-metadata prefilter)'],
    COMPUTE_STATUS_DISABLED: ['compute_status_filter: disabled computes are never candidates'],
  },
};
const GOOD = ['COMPUTE_IMAGE_TYPE_QCOW2', 'HW_ARCH_X86_64'];
const short: ResourceFit[] = [
  { resourceClass: 'VCPU', requested: 1, capacity: 2, used: 0, free: 2, fits: true },
  { resourceClass: 'MEMORY_MB', requested: 1024, capacity: 1536, used: 1024, free: 512, fits: false, why: 'needs 1024, 512 free (capacity 1536, used 1024)' },
];
const roomy: ResourceFit[] = [{ resourceClass: 'MEMORY_MB', requested: 512, capacity: 15872, used: 0, free: 15872, fits: true }];
const R = 'VCPU:1,MEMORY_MB:1024';

describe('judgeHost', () => {
  it.each([
    { title: 'returned by Placement → candidate', traits: GOOD, returned: true, fit: undefined, resources: R,
      verdict: 'candidate', candidate: true, reason: `Placement returns it: the traits match and there is room for ${R}` },
    { title: 'lacks a required trait → traits, naming the trait and the image property', traits: ['HW_ARCH_X86_64'], returned: false, fit: undefined, resources: R,
      verdict: 'traits', candidate: false, reason: 'lacks required COMPUTE_IMAGE_TYPE_QCOW2 (image disk_format=qcow2 (image-type prefilter))' },
    { title: 'has a forbidden trait → traits', traits: [...GOOD, 'COMPUTE_STATUS_DISABLED'], returned: false, fit: undefined, resources: R,
      verdict: 'traits', candidate: false, reason: 'has forbidden COMPUTE_STATUS_DISABLED (compute_status_filter: disabled computes are never candidates)' },
    { title: 'traits match, memory short → resources with the numbers', traits: GOOD, returned: false, fit: short, resources: R,
      verdict: 'resources', candidate: false, reason: 'traits match, but not enough resources: MEMORY_MB needs 1024, 512 free (capacity 1536, used 1024)' },
    { title: 'traits match, capacity not read → not-returned', traits: GOOD, returned: false, fit: undefined, resources: R,
      verdict: 'not-returned', candidate: false, reason: 'traits match, but Placement did not return it: not enough resources or not a root (capacity not looked up)' },
    { title: 'traits match, own inventory has room → not-returned, saying so', traits: GOOD, returned: false, fit: roomy, resources: R,
      verdict: 'not-returned', candidate: false,
      reason: 'traits match and its own inventory has room (MEMORY_MB 15872 free), yet Placement did not return it: not enough resources or not a root (resources held by child or sharing providers, or usage changed since)' },
    { title: 'no resources given → traits-match', traits: GOOD, returned: undefined, fit: undefined, resources: undefined,
      verdict: 'traits-match', candidate: true, reason: 'meets all 3 trait constraints; resources not checked (none given)' },
    { title: 'no resources given, lacking → traits', traits: [], returned: undefined, fit: undefined, resources: undefined,
      verdict: 'traits', candidate: false, reason: expect.stringMatching(/^lacks required COMPUTE_IMAGE_TYPE_QCOW2 .*, HW_ARCH_X86_64 /) as unknown },
  ])('judgeHost: $title', ({ traits, returned, fit, resources, verdict, candidate, reason }) => {
    expect(judgeHost({ explanation: explainCandidate(traits, request), returned, fit, resources, parent: undefined }))
      .toEqual({ verdict, candidate, reason });
  });

  it('judgeHost: Placement\'s answer wins: returned although the root lacks a trait (a child supplies it)', () => {
    const judged = judgeHost({ explanation: explainCandidate(['HW_ARCH_X86_64'], request), returned: true, fit: undefined, resources: R, parent: undefined });
    expect(judged).toMatchObject({ candidate: true, verdict: 'candidate' });
    expect(judged.reason).toContain('another provider of its tree supplies those');
  });

  it('judgeHost: a child provider gets a note that root traits are judged on its root', () => {
    const judged = judgeHost({ explanation: explainCandidate([], request), returned: false, fit: undefined, resources: R, parent: 'root-uuid' });
    expect(judged.reason).toMatch(/; note: a child provider of root-uuid: root_required traits are judged on the root, not on it$/);
  });
});
