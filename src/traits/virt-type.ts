import { FerryError } from '../errors/ferry-error.js';

/** `[libvirt] virt_type` choices of nova (default kvm). */
export const VIRT_TYPES = ['kvm', 'qemu', 'lxc', 'parallels'] as const;

export type VirtType = (typeof VIRT_TYPES)[number];

export const DEFAULT_VIRT_TYPE: VirtType = 'kvm';

/** Check a virt type that arrived as plain data; FERRY_INVALID_OPTION names nova's option. */
export function assertVirtType(value: string): VirtType {
  const found = VIRT_TYPES.find((v) => v === value);
  if (found === undefined) {
    throw new FerryError(
      'FERRY_INVALID_OPTION',
      `[libvirt] virt_type must be one of ${VIRT_TYPES.join(', ')}, got '${value}'`,
      'Use the value nova-compute runs with on this host (nova.conf [libvirt] virt_type).',
      { option: '[libvirt] virt_type', value },
    );
  }
  return found;
}

/** The `<domain>` values libvirt may answer with for a virt type (the vz driver reports Virtuozzo as `vz`). */
export function domcapsDomainsFor(virtType: VirtType): readonly string[] {
  return virtType === 'parallels' ? ['parallels', 'vz'] : [virtType];
}
