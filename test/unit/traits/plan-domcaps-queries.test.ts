import { describe, expect, it } from 'vitest';
import { planDomcapsQueries } from '../../../src/traits/plan-domcaps-queries.js';
import { parseHostCapabilities } from '../../../src/traits/parse-host-capabilities.js';
import { readFixture } from './domcaps-fixtures.js';

const host = parseHostCapabilities(readFixture('capabilities.xml'), 'capabilities.xml');
const pairs = (queries: ReturnType<typeof planDomcapsQueries>): (string | undefined)[][] => queries.map((q) => [q.arch, q.machine]);

describe('planDomcapsQueries', () => {
  it('planDomcapsQueries: kvm on the fixture host asks for pc + q35 of the kvm arches (the four fixture files are x86_64)', () => {
    expect(pairs(planDomcapsQueries(host, 'kvm'))).toEqual([
      ['i686', 'pc'], ['i686', 'q35'], ['x86_64', 'pc'], ['x86_64', 'q35'],
    ]);
  });

  it('planDomcapsQueries: qemu adds the arm arches; armv6l has no built-in default, so libvirt picks', () => {
    expect(pairs(planDomcapsQueries(host, 'qemu'))).toEqual([
      ['armv6l', undefined], ['armv6l', 'virt'], ['armv7l', 'virt'], ['aarch64', 'virt'],
      ['i686', 'pc'], ['i686', 'q35'], ['x86_64', 'pc'], ['x86_64', 'q35'],
    ]);
  });

  it('planDomcapsQueries: hw_machine_type naming a canonical machine does not repeat its alias', () => {
    expect(pairs(planDomcapsQueries(host, 'kvm', { x86_64: 'q35' }))).toEqual([
      ['i686', 'pc'], ['i686', 'q35'], ['x86_64', 'q35'], ['x86_64', 'pc'],
    ]);
  });

  it('planDomcapsQueries: the virsh arguments', () => {
    expect(planDomcapsQueries(host, 'kvm')[3]?.argv).toEqual(['domcapabilities', '--virttype', 'kvm', '--arch', 'x86_64', '--machine', 'q35']);
  });

  it.each(['lxc', 'parallels'] as const)('planDomcapsQueries: %s reads no domain capabilities', (virtType) => {
    expect(planDomcapsQueries(host, virtType)).toEqual([]);
  });
});
