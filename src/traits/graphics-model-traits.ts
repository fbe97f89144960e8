import type { DomainCapabilities } from './parse-domain-capabilities.js';
import { DOMCAPS_PATHS } from './parse-domain-capabilities.js';
import { domcapsValues, sourcesOf } from './domcaps-values.js';
import type { TraitCatalogue } from './trait-catalogue.js';
import { TraitFindingsBuilder, traitSuffix, valueReason } from './trait-findings.js';
import type { TraitFindings } from './trait-findings.js';

export const GRAPHICS_MODEL_PREFIX = 'COMPUTE_GRAPHICS_MODEL_';

/**
 * COMPUTE_GRAPHICS_MODEL_*: the union of `devices/video/enum[@name='modelType']` over the given domain
 * capabilities, for every virt type (undecided when none are given). libvirt-only models such as ramfb have no
 * trait and are reported as unmapped. `devices/graphics/enum[@name='type']` (vnc, spice, …) lists display
 * protocols, not video models, and is not read.
 */
export function graphicsModelTraits(domcaps: readonly DomainCapabilities[], catalogue: TraitCatalogue): TraitFindings {
  const findings = new TraitFindingsBuilder(catalogue);
  if (domcaps.length === 0) return findings.build();
  findings.decide(GRAPHICS_MODEL_PREFIX);
  for (const [model, sources] of domcapsValues(domcaps, (caps) => caps.videoModels)) {
    findings.offer(
      GRAPHICS_MODEL_PREFIX + traitSuffix(model),
      valueReason(DOMCAPS_PATHS.videoModel, model, sources),
      model,
      `${DOMCAPS_PATHS.videoModel} in ${sources.join(', ')}`,
    );
  }
  for (const trait of catalogue.withPrefix(GRAPHICS_MODEL_PREFIX)) {
    findings.absent(trait, `not in ${DOMCAPS_PATHS.videoModel} of ${sourcesOf(domcaps)}`);
  }
  return findings.build();
}
