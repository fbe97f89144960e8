import { readFileSync } from 'node:fs';
import { hostTraits, type HostTraitReport } from '../../../src/traits/host-traits.js';
import { parseDomainCapabilities } from '../../../src/traits/parse-domain-capabilities.js';
import { parseHostCapabilities } from '../../../src/traits/parse-host-capabilities.js';
import { standardTraitCatalogue } from '../../../src/traits/trait-catalogue.js';
import type { TraitsStorage } from '../../../src/traits/traits-command-report.js';

const xml = (name: string): string => readFileSync(`fixtures/domcaps/${name}`, 'utf8');

/** An rbd host, raw images only (nova's defaults but images_type=rbd), as `ferry traits --images-type rbd` reads it. */
export const RBD_STORAGE: TraitsStorage = {
  imagesType: 'rbd', imagesTypeMapping: undefined, forceRawImages: true, useCowImages: true, imageTypeExcludeList: [],
  virtType: 'kvm', keptFormats: { raw: 'rbd' },
};

/** The recorded x86_64 KVM host (pc and q35 domain capabilities, its capabilities XML), judged against os-traits 2.9.0. */
export function recordedHostTraits(): HostTraitReport {
  return hostTraits({
    virtType: 'kvm', storage: { imagesType: 'rbd', forceRawImages: true, imageTypeExcludeList: [] },
    domainCapabilities: ['domcaps-x86_64-kvm-pc.xml', 'domcaps-x86_64-kvm-q35.xml'].map((name) => parseDomainCapabilities(xml(name), name)),
    hostCapabilities: parseHostCapabilities(xml('capabilities.xml')),
  }, standardTraitCatalogue());
}
