import type { HostCapabilities } from './parse-host-capabilities.js';
import { canonicalArch } from './arch-traits.js';
import type { VirtType } from './virt-type.js';

/** One `virsh domcapabilities` call nova would make on this host. */
export interface DomcapsQuery {
  readonly arch: string;
  readonly virtType: VirtType;
  /** `undefined` = libvirt's own default for the arch (nova passes none for arches without a built-in default). */
  readonly machine: string | undefined;
  /** Arguments after `virsh -c <uri>`. */
  readonly argv: readonly string[];
}

/** nova's built-in default machine type per arch (`[libvirt] hw_machine_type` overrides it per arch). */
export const DEFAULT_MACHINE_TYPES: Readonly<Record<string, string>> = {
  armv7l: 'virt',
  aarch64: 'virt',
  ppc64le: 'pseries',
  s390: 's390-ccw-virtio',
  s390x: 's390-ccw-virtio',
  i686: 'pc',
  x86_64: 'pc',
};

/**
 * The domain capabilities nova reads on this host (placement-and-traits.md §9.3), so a collector can ask virsh for
 * exactly those: for every guest arch offering `virtType`, the default machine type (or `machineTypes[arch]`, as
 * from `[libvirt] hw_machine_type = x86_64=q35`) plus every machine alias with `canonical=`, each canonical machine
 * once. Arches without `virtType` are skipped: libvirt refuses them and nova drops the arch. Only qemu and kvm read
 * domain capabilities this way; other virt types get no queries.
 */
export function planDomcapsQueries(
  host: HostCapabilities,
  virtType: VirtType,
  machineTypes: Readonly<Record<string, string>> = {},
): readonly DomcapsQuery[] {
  if (virtType !== 'qemu' && virtType !== 'kvm') return [];
  return host.guests
    .filter((guest) => guest.domains.includes(virtType))
    .flatMap((guest) => {
      const arch = canonicalArch(guest.arch);
      const canonicalOf = (machine: string): string => guest.machines.find((m) => m.name === machine)?.canonical ?? machine;
      const wanted = [machineTypes[arch] ?? DEFAULT_MACHINE_TYPES[arch], ...guest.machines.flatMap((m) => (m.canonical === undefined ? [] : [m.name]))];
      const seen = new Set<string>();
      const queries: DomcapsQuery[] = [];
      for (const machine of wanted) {
        const key = machine === undefined ? '' : canonicalOf(machine);
        if (seen.has(key)) continue;
        seen.add(key);
        const argv = ['domcapabilities', '--virttype', virtType, '--arch', guest.arch, ...(machine === undefined ? [] : ['--machine', machine])];
        queries.push(Object.freeze({ arch: guest.arch, virtType, machine, argv: Object.freeze(argv) }));
      }
      return queries;
    });
}
