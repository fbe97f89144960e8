import type { GlanceImage } from '../glance/image.js';
import type { HostExplanations } from './explain-hosts.js';
import type { CandidateList } from './find-candidates.js';
import type { PrefilterResult } from './prefilter-result.js';

/** Whether one image prefilter is on, and which setting decided. */
export interface FilterSwitch {
  readonly on: boolean;
  /** `--image-type-filter`, `nova.conf (/etc/nova/nova.conf) [scheduler] …`, or `ferry default`. */
  readonly source: string;
}

/** The two image prefilters nova runs, each on or off, with what decided. */
export interface FilterSwitches {
  readonly imageType: FilterSwitch;
  readonly imageMetadata: FilterSwitch;
}

/** What every prefilter-based command (prefilter, candidates, explain) computed, for which image, against which names. */
export interface TraitRequestReport {
  readonly image: Pick<GlanceImage, 'id' | 'name'>;
  readonly result: PrefilterResult;
  /** `2.9.0` (an os-traits release) or `placement` (the target Placement's own list). */
  readonly catalogueVersion: string;
  readonly switches: FilterSwitches;
}

/** What `ferry prefilter` computed. */
export interface PrefilterReport extends TraitRequestReport {
  /** The result's notes, plus ferry's own (why Placement's trait list was not used). */
  readonly notes: readonly string[];
}

/** What `ferry candidates` asked Placement, and the hosts it answered with. */
export interface CandidatesReport extends TraitRequestReport {
  readonly list: CandidateList;
}

/** What `ferry explain` found, host by host. */
export interface ExplainReport extends TraitRequestReport {
  readonly explained: HostExplanations;
}
