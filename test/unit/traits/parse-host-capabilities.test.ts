import { describe, expect, it } from 'vitest';
import { parseHostCapabilities } from '../../../src/traits/parse-host-capabilities.js';
import { readFixture } from './domcaps-fixtures.js';

describe('parseHostCapabilities', () => {
  const caps = parseHostCapabilities(readFixture('capabilities.xml'), 'capabilities.xml');

  it('parseHostCapabilities: host CPU arch from host/cpu/arch', () => {
    expect(caps.hostArch).toBe('x86_64');
  });

  // Read off capabilities.xml: one <guest> per arch, the virt types and the machine aliases (canonical=).
  const guests = [
    { arch: 'armv6l', emulator: '/usr/bin/qemu-system-arm', domains: ['qemu'], aliases: [['virt', 'virt-7.2']] },
    { arch: 'armv7l', emulator: '/usr/bin/qemu-system-arm', domains: ['qemu'], aliases: [['virt', 'virt-7.2']] },
    { arch: 'aarch64', emulator: '/usr/bin/qemu-system-aarch64', domains: ['qemu'], aliases: [['virt', 'virt-7.2']] },
    { arch: 'i686', emulator: '/usr/bin/qemu-system-i386', domains: ['qemu', 'kvm'], aliases: [['pc', 'pc-i440fx-7.2'], ['q35', 'pc-q35-7.2']] },
    { arch: 'x86_64', emulator: '/usr/bin/qemu-system-x86_64', domains: ['qemu', 'kvm'], aliases: [['pc', 'pc-i440fx-7.2'], ['q35', 'pc-q35-7.2']] },
  ];
  it.each(guests)('parseHostCapabilities: guest $arch', ({ arch, emulator, domains, aliases }) => {
    const guest = caps.guests.find((g) => g.arch === arch);
    expect(guest).toMatchObject({ arch, osType: 'hvm', emulator, domains });
    expect(guest?.machines.filter((m) => m.canonical !== undefined).map((m) => [m.name, m.canonical])).toEqual(aliases);
  });

  it('parseHostCapabilities: five guests, in file order', () => {
    expect(caps.guests.map((g) => g.arch)).toEqual(['armv6l', 'armv7l', 'aarch64', 'i686', 'x86_64']);
  });

  it('parseHostCapabilities: domain capabilities are refused with a pointer to the right parser', () => {
    expect(() => parseHostCapabilities(readFixture('domcaps-x86_64-kvm-pc.xml'), 'd.xml')).toThrow(
      expect.objectContaining({ code: 'FERRY_INVALID_XML', message: 'd.xml is not libvirt host capabilities: its root element is <domainCapabilities>, expected <capabilities>' }),
    );
  });

  it('parseHostCapabilities: no host/cpu/arch → FERRY_INVALID_XML', () => {
    expect(() => parseHostCapabilities('<capabilities><host><cpu/></host></capabilities>', 'c.xml')).toThrow(
      expect.objectContaining({ code: 'FERRY_INVALID_XML', details: { source: 'c.xml', missing: 'host/cpu/arch' } }),
    );
  });
});
