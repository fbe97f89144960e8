import { imageTraitRequest } from '../../../src/prefilter/image-trait-request.js';
import type { TraitRequestReport } from '../../../src/prefilter/trait-request-report.js';
import { standardTraitCatalogue } from '../../../src/traits/trait-catalogue.js';
import { x86Qcow2Image } from '../prefilter/prefilter-placement.js';

/**
 * The request part of a real prefilter case: fixtures/images/qcow2.json on x86_64 with an SSD extra spec, for
 * nova's microversion, both filters on by ferry's default (as `ferry prefilter --image FILE` computes it).
 */
export function recordedTraitRequest(resources?: string): TraitRequestReport {
  const result = imageTraitRequest(x86Qcow2Image({ hw_vif_model: 'igb' }), {
    catalogue: standardTraitCatalogue(), microversion: '1.36', flavorExtraSpecs: { 'trait:STORAGE_DISK_SSD': 'required' },
    ...(resources === undefined ? {} : { resources }),
  });
  return {
    image: { id: '8554f597-4961-4557-9ad1-1fbfef5ebc46', name: 'ferry-fixture-site-a' }, result, catalogueVersion: '2.9.0',
    switches: { imageType: { on: true, source: 'ferry default' }, imageMetadata: { on: true, source: 'ferry default' } },
  };
}
