import { FerryError } from '../errors/ferry-error.js';
import { readXmlDocument } from './xml-element.js';
import type { XmlDocumentSpec, XmlElement } from './xml-element.js';

/** Where each value came from, in the words reasons use (XPath relative to `<domainCapabilities>`). */
export const DOMCAPS_PATHS = {
  arch: 'arch',
  diskBus: "devices/disk/enum[@name='bus']",
  videoModel: "devices/video/enum[@name='modelType']",
  firmware: "os/enum[@name='firmware']",
  loaderType: "os/loader/enum[@name='type']",
  loaderSecure: "os/loader/enum[@name='secure']",
  tpm: "devices/tpm[@supported='yes']",
  tpmModel: "devices/tpm/enum[@name='model']",
  tpmBackendModel: "devices/tpm/enum[@name='backendModel']",
  tpmBackendVersion: "devices/tpm/enum[@name='backendVersion']",
} as const;

export interface DomainCapabilitiesTpm {
  /** `<tpm supported='yes'>`. */
  readonly supported: boolean;
  /** tpm-tis, tpm-crb, … */
  readonly models: readonly string[];
  /** passthrough, emulator (swtpm), external. */
  readonly backendModels: readonly string[];
  /** `undefined` when libvirt reports no backendVersion enum at all (nova then assumes both 1.2 and 2.0). */
  readonly backendVersions: readonly string[] | undefined;
}

/** What ferry reads from one `virsh domcapabilities` answer (one arch, machine type and virt type). */
export interface DomainCapabilities {
  /** File name or label, quoted in every reason and error. */
  readonly source: string;
  readonly path: string | undefined;
  /** The virt type libvirt answered for (`<domain>`: kvm, qemu). */
  readonly domain: string;
  readonly machine: string | undefined;
  readonly arch: string;
  readonly diskBuses: readonly string[];
  readonly videoModels: readonly string[];
  readonly firmware: readonly string[];
  readonly loaderTypes: readonly string[];
  readonly loaderSecure: readonly string[];
  readonly tpm: DomainCapabilitiesTpm;
}

export const DEFAULT_DOMCAPS_SOURCE = 'the domain capabilities XML';

const SPEC: XmlDocumentSpec = {
  root: 'domainCapabilities',
  what: 'libvirt domain capabilities',
  wrongRootHint:
    'Give the output of `virsh domcapabilities --virttype kvm --arch x86_64 --machine q35` (one file per arch and ' +
    'machine type); `virsh capabilities` is the host description, read with parseHostCapabilities.',
  arrayTags: new Set(['enum', 'value']),
  // Half of each file is CPU models and features, which no trait here reads: skipping the tree halves parse time.
  skipPaths: ['domainCapabilities.cpu'],
};

/**
 * Parse `virsh domcapabilities` XML. Malformed or truncated XML, another root element, or a document without
 * `<domain>` / `<arch>` throws FERRY_INVALID_XML naming `source`. Elements ferry does not read are ignored, so a
 * newer libvirt that adds some is no problem.
 */
export function parseDomainCapabilities(xml: string, source: string = DEFAULT_DOMCAPS_SOURCE): DomainCapabilities {
  const root = readXmlDocument(xml, source, SPEC);
  const os = supported(root.child('os'));
  const loader = supported(os?.child('loader'));
  const devices = root.child('devices');
  const tpm = devices?.child('tpm');
  const tpmSupported = tpm?.attr('supported') === 'yes';
  const backendVersion = tpm?.children('enum').find((e) => e.attr('name') === 'backendVersion');
  return Object.freeze({
    source,
    path: root.child('path')?.text(),
    domain: required(root, 'domain', source),
    machine: root.child('machine')?.text(),
    arch: required(root, 'arch', source),
    diskBuses: enumValues(supported(devices?.child('disk')), 'bus'),
    videoModels: enumValues(supported(devices?.child('video')), 'modelType'),
    firmware: enumValues(os, 'firmware'),
    loaderTypes: enumValues(loader, 'type'),
    loaderSecure: enumValues(loader, 'secure'),
    tpm: Object.freeze({
      supported: tpmSupported,
      models: tpmSupported ? enumValues(tpm, 'model') : [],
      backendModels: tpmSupported ? enumValues(tpm, 'backendModel') : [],
      backendVersions: tpmSupported && backendVersion !== undefined ? valuesOf(backendVersion) : undefined,
    }),
  });
}

// libvirt marks an element it cannot offer with supported='no' and may still list enums under it.
function supported(element: XmlElement | undefined): XmlElement | undefined {
  return element?.attr('supported') === 'no' ? undefined : element;
}

function enumValues(parent: XmlElement | undefined, name: string): readonly string[] {
  const element = parent?.children('enum').find((e) => e.attr('name') === name);
  return element === undefined ? [] : valuesOf(element);
}

function valuesOf(element: XmlElement): readonly string[] {
  const values = element.children('value').flatMap((v) => {
    const text = v.text()?.trim();
    return text === undefined || text === '' ? [] : [text];
  });
  return Object.freeze([...new Set(values)]);
}

function required(root: XmlElement, tag: string, source: string): string {
  const value = root.child(tag)?.text()?.trim();
  if (value === undefined || value === '') {
    throw new FerryError(
      'FERRY_INVALID_XML',
      `${source} has no <${tag}> under <domainCapabilities>, which every libvirt answer carries`,
      SPEC.wrongRootHint,
      { source, missing: tag },
    );
  }
  return value;
}
