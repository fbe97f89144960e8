// A compute host's traits as `ferry traits report` computes them, from the recorded Debian 12 libvirt XML
// (fixtures/domcaps): storage through src/backend, names checked against the given catalogue.
import { keptFormats } from '../../src/backend/kept-formats.js';
import { resolveBackendConfig } from '../../src/backend/resolve-backend-config.js';
import { hostTraits, type HostCapabilitiesInput, type HostTraitReport } from '../../src/traits/host-traits.js';
import { parseHostCapabilities } from '../../src/traits/parse-host-capabilities.js';
import type { TraitCatalogue } from '../../src/traits/trait-catalogue.js';
import { loadDomcaps, readFixture, type DomcapsFile } from '../unit/traits/domcaps-fixtures.js';

/** The storage options that decide a host's image-type traits. */
export interface HostStorage {
  readonly imagesType: 'rbd' | 'qcow2' | 'ploop' | 'raw' | 'lvm' | 'flat' | 'default';
  readonly forceRawImages?: boolean;
  /** `[libvirt] images_type_mapping`, e.g. `qcow2:qcow2`. */
  readonly mapping?: string;
}

/** The recorded host's domain capabilities (the given files) and `virsh capabilities` (host arch x86_64). */
export function recordedXml(files: readonly DomcapsFile[] = ['domcaps-x86_64-kvm-pc.xml', 'domcaps-x86_64-kvm-q35.xml']):
  Pick<HostCapabilitiesInput, 'domainCapabilities' | 'hostCapabilities'> {
  return {
    domainCapabilities: files.map(loadDomcaps),
    hostCapabilities: parseHostCapabilities(readFixture('capabilities.xml'), 'capabilities.xml'),
  };
}

export function hostTraitReport(input: Omit<HostCapabilitiesInput, 'storage'>, storage: HostStorage, catalogue: TraitCatalogue): HostTraitReport {
  const backend = resolveBackendConfig({ imagesType: storage.imagesType, ...(storage.mapping ? { imagesTypeMapping: storage.mapping } : {}) });
  return hostTraits({ ...input, storage: { imagesType: storage.imagesType, forceRawImages: storage.forceRawImages ?? true,
    keptFormats: keptFormats(backend) } }, catalogue);
}
