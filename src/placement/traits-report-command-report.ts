import type { HostTraitReport } from '../traits/host-traits.js';
import type { TraitsStorage } from '../traits/traits-command-report.js';
import type { TraitReportResult } from './report-traits.js';

/** What `ferry traits report` did, and the host report it sent. */
export interface TraitsReportCommandReport {
  readonly result: TraitReportResult;
  readonly report: HostTraitReport;
  readonly storage: TraitsStorage;
}
