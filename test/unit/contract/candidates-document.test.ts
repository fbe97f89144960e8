import { describe } from 'vitest';
import { candidatesDocument, candidatesJsonSchema } from '../../../src/contract/candidates-document.js';
import { itKeepsItsContract, MISSING } from './document-case.js';
import { recordedTraitRequest } from './prefilter-documents.js';

const COMPUTE_7 = '25db01ca-dd34-4756-8c28-470a7caf4920';

describe('contract/candidates-document', () => {
  itKeepsItsContract('ferry candidates --json', candidatesJsonSchema, () => {
    const report = recordedTraitRequest('VCPU:1,MEMORY_MB:512');
    return candidatesDocument({ ...report, list: {
      query: report.result.query, microversion: '1.39', resources: 'VCPU:1,MEMORY_MB:512', limit: undefined,
      candidates: [{ uuid: COMPUTE_7, name: 'compute-7.site-b', traits: ['COMPUTE_IMAGE_TYPE_QCOW2', 'HW_ARCH_X86_64', 'STORAGE_DISK_SSD'],
        resources: { VCPU: { capacity: 64, used: 2 }, MEMORY_MB: { capacity: 15_500, used: 1_024 } }, providers: [COMPUTE_7], allocationRequests: 1 }],
      allocationRequests: 1,
    } });
  }, [
    { why: 'a candidate with no allocation request', path: ['candidates', 0, 'allocation_requests'], value: 0 },
    { why: 'a limit of 0', path: ['limit'], value: 0 },
    { why: 'the resources left out', path: ['resources'], value: MISSING },
    { why: 'an unknown key in a candidate', path: ['candidates', 0, 'allocationRequests'], value: 1 },
  ]);
});
