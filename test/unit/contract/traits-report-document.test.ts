import { describe } from 'vitest';
import { traitsReportDocument, traitsReportJsonSchema } from '../../../src/contract/traits-report-document.js';
import { itKeepsItsContract, MISSING } from './document-case.js';
import { RBD_STORAGE, recordedHostTraits } from './traits-documents.js';

describe('contract/traits-report-document', () => {
  itKeepsItsContract('ferry traits report --json', traitsReportJsonSchema, () => {
    const report = recordedHostTraits();
    return traitsReportDocument({ report, storage: RBD_STORAGE, result: {
      provider: { uuid: '25db01ca-dd34-4756-8c28-470a7caf4920', name: 'compute-7.site-b' },
      added: report.traits.slice(0, 2), removed: ['COMPUTE_IMAGE_TYPE_QCOW2'], kept: ['COMPUTE_STATUS_DISABLED', 'CUSTOM_SITE_B'],
      unchanged: false, attempts: 2, dryRun: false, traits: [...report.traits, 'COMPUTE_STATUS_DISABLED', 'CUSTOM_SITE_B'].sort(), generation: 7,
    } });
  }, [
    { why: 'no attempt at all', path: ['attempts'], value: 0 },
    { why: 'a negative generation', path: ['generation'], value: -1 },
    { why: 'the provider without its name', path: ['provider', 'name'], value: MISSING },
    { why: 'dry_run as a string', path: ['dry_run'], value: 'false' },
  ]);
});
