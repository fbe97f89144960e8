import { describe } from 'vitest';
import { explainDocument, explainJsonSchema } from '../../../src/contract/explain-document.js';
import { itKeepsItsContract, MISSING } from './document-case.js';
import { recordedTraitRequest } from './prefilter-documents.js';

describe('contract/explain-document', () => {
  itKeepsItsContract('ferry explain --json', explainJsonSchema, () => {
    const report = recordedTraitRequest('VCPU:1,MEMORY_MB:512');
    return explainDocument({ ...report, explained: {
      query: report.result.query, microversion: '1.39', resources: 'VCPU:1,MEMORY_MB:512', traitLookup: 'per-host', capacityNotRead: 0,
      hosts: [
        { uuid: '25db01ca-dd34-4756-8c28-470a7caf4920', name: 'compute-7.site-b', parent: undefined, candidate: true, verdict: 'candidate',
          lacks: [], hasForbidden: [], fit: undefined, reason: 'Placement returns it' },
        { uuid: '0c1c8c8e-7f0e-4a53-9c8e-4d2b5c7e9a11', name: 'compute-8.site-b', parent: undefined, candidate: false, verdict: 'resources',
          lacks: [], hasForbidden: [], reason: 'not enough MEMORY_MB: 256 free of 15500, 512 requested',
          fit: [{ resourceClass: 'MEMORY_MB', requested: 512, capacity: 15_500, used: 15_244, free: 256, fits: false, why: '256 free, 512 requested' }] },
        { uuid: '6a0b1d2e-3f40-4c5d-8e6f-708192a3b4c5', name: 'compute-9.site-b', parent: undefined, candidate: false, verdict: 'traits',
          lacks: [{ trait: 'STORAGE_DISK_SSD', parameter: 'required', reasons: ['flavor extra spec trait:STORAGE_DISK_SSD=required'] }],
          hasForbidden: [], fit: undefined, reason: 'lacks STORAGE_DISK_SSD' },
      ],
    } });
  }, [
    { why: 'a verdict no explanation gives', path: ['hosts', 0, 'verdict'], value: 'maybe' },
    { why: 'a trait gap as an object, not its name', path: ['hosts', 2, 'lacks', 0], value: { trait: 'STORAGE_DISK_SSD' } },
    { why: 'a negative candidate count', path: ['candidates'], value: -1 },
    { why: 'a fit without its resource class', path: ['hosts', 1, 'fit', 0, 'resource_class'], value: MISSING },
  ]);
});
