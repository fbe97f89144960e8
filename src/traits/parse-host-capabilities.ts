import { FerryError } from '../errors/ferry-error.js';
import { readXmlDocument } from './xml-element.js';
import type { XmlDocumentSpec } from './xml-element.js';

export interface GuestMachine {
  readonly name: string;
  /** Set on aliases (`pc` → `pc-i440fx-7.2`): nova queries domain capabilities for every alias. */
  readonly canonical: string | undefined;
}

/** One `<guest>`: an arch libvirt can emulate, with the virt types (`<domain type>`) and machine types it offers. */
export interface GuestArch {
  readonly arch: string;
  readonly osType: string | undefined;
  readonly emulator: string | undefined;
  readonly domains: readonly string[];
  readonly machines: readonly GuestMachine[];
}

/** What ferry reads from `virsh capabilities`. */
export interface HostCapabilities {
  readonly source: string;
  /** `host/cpu/arch`: the arch of the host CPU, source of HW_ARCH_*. */
  readonly hostArch: string;
  readonly guests: readonly GuestArch[];
}

export const HOST_CPU_ARCH_PATH = 'host/cpu/arch';

const SPEC: XmlDocumentSpec = {
  root: 'capabilities',
  what: 'libvirt host capabilities',
  wrongRootHint: 'Give the output of `virsh capabilities`; domain capabilities are read with parseDomainCapabilities.',
  arrayTags: new Set(['guest', 'machine', 'domain']),
};

/**
 * Parse `virsh capabilities` XML: the host CPU arch and the guest arches with their virt types and machine types.
 * Malformed XML, another root or a missing `host/cpu/arch` throws FERRY_INVALID_XML naming `source`.
 */
export function parseHostCapabilities(xml: string, source = 'the host capabilities XML'): HostCapabilities {
  const root = readXmlDocument(xml, source, SPEC);
  const hostArch = root.child('host')?.child('cpu')?.child('arch')?.text()?.trim();
  if (hostArch === undefined || hostArch === '') {
    throw new FerryError(
      'FERRY_INVALID_XML',
      `${source} has no <${HOST_CPU_ARCH_PATH}>, which names the host CPU arch`,
      SPEC.wrongRootHint,
      { source, missing: HOST_CPU_ARCH_PATH },
    );
  }
  const guests = root.children('guest').flatMap((guest): GuestArch[] => {
    const arch = guest.child('arch');
    const name = arch?.attr('name');
    if (arch === undefined || name === undefined) return [];
    return [
      Object.freeze({
        arch: name,
        osType: guest.child('os_type')?.text(),
        emulator: arch.child('emulator')?.text(),
        domains: arch.children('domain').flatMap((d) => d.attr('type') ?? []),
        machines: arch.children('machine').flatMap((m) => {
          const machine = m.text();
          return machine === undefined ? [] : [Object.freeze({ name: machine, canonical: m.attr('canonical') })];
        }),
      }),
    ];
  });
  return Object.freeze({ source, hostArch, guests });
}
