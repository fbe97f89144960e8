import { describe, expect, it } from 'vitest';
import { parseDomainCapabilities } from '../../../src/traits/parse-domain-capabilities.js';
import { loadDomcaps, readFixture } from './domcaps-fixtures.js';

// Expected values read off the XML files by hand (see placement-and-traits.md §8.3 for the inventory).
const VIDEO = ['vga', 'cirrus', 'vmvga', 'qxl', 'virtio', 'none', 'bochs', 'ramfb'];
const TPM = { supported: true, models: ['tpm-tis', 'tpm-crb'], backendModels: ['passthrough', 'emulator', 'external'], backendVersions: ['1.2', '2.0'] };

const fileCases = [
  {
    file: 'domcaps-x86_64-kvm-pc.xml' as const,
    expected: {
      domain: 'kvm', machine: 'pc-i440fx-7.2', arch: 'x86_64', path: '/usr/bin/qemu-system-x86_64',
      diskBuses: ['ide', 'fdc', 'scsi', 'virtio', 'usb', 'sata'], videoModels: VIDEO,
      firmware: ['efi'], loaderTypes: ['rom', 'pflash'], loaderSecure: ['no'], tpm: TPM,
    },
  },
  {
    file: 'domcaps-x86_64-kvm-q35.xml' as const,
    expected: {
      domain: 'kvm', machine: 'pc-q35-7.2', arch: 'x86_64', path: '/usr/bin/qemu-system-x86_64',
      diskBuses: ['fdc', 'scsi', 'virtio', 'usb', 'sata'], videoModels: VIDEO,
      firmware: ['efi'], loaderTypes: ['rom', 'pflash'], loaderSecure: ['yes', 'no'], tpm: TPM,
    },
  },
  {
    file: 'domcaps-x86_64-qemu-pc.xml' as const,
    expected: {
      domain: 'qemu', machine: 'pc-i440fx-7.2', arch: 'x86_64', path: '/usr/bin/qemu-system-x86_64',
      diskBuses: ['ide', 'fdc', 'scsi', 'virtio', 'usb', 'sata'], videoModels: VIDEO,
      firmware: ['efi'], loaderTypes: ['rom', 'pflash'], loaderSecure: ['no'], tpm: TPM,
    },
  },
  {
    file: 'domcaps-x86_64-qemu-q35.xml' as const,
    expected: {
      domain: 'qemu', machine: 'pc-q35-7.2', arch: 'x86_64', path: '/usr/bin/qemu-system-x86_64',
      diskBuses: ['fdc', 'scsi', 'virtio', 'usb', 'sata'], videoModels: VIDEO,
      firmware: ['efi'], loaderTypes: ['rom', 'pflash'], loaderSecure: ['yes', 'no'], tpm: TPM,
    },
  },
];

describe('parseDomainCapabilities', () => {
  it.each(fileCases)('parseDomainCapabilities: $file', ({ file, expected }) => {
    expect(loadDomcaps(file)).toEqual({ source: file, ...expected });
  });

  it('parseDomainCapabilities: without a source label, messages and reasons say "the domain capabilities XML"', () => {
    expect(parseDomainCapabilities(readFixture('domcaps-x86_64-kvm-q35.xml')).source).toBe('the domain capabilities XML');
  });

  it('parseDomainCapabilities: supported=no hides enums, a missing backendVersion enum stays undefined', () => {
    const xml = `<?xml version="1.0"?>
<domainCapabilities><domain>kvm</domain><arch>aarch64</arch>
  <os supported='yes'><loader supported='no'><enum name='secure'><value>yes</value></enum></loader></os>
  <devices>
    <disk supported='no'><enum name='bus'><value>ide</value></enum></disk>
    <video supported='yes'><enum name='modelType'><value>virtio</value></enum></video>
    <tpm supported='yes'><enum name='model'><value>tpm-tis</value></enum><enum name='backendModel'><value>emulator</value></enum></tpm>
  </devices>
</domainCapabilities>`;
    expect(parseDomainCapabilities(xml, 'arm.xml')).toEqual({
      source: 'arm.xml', path: undefined, domain: 'kvm', machine: undefined, arch: 'aarch64',
      diskBuses: [], videoModels: ['virtio'], firmware: [], loaderTypes: [], loaderSecure: [],
      tpm: { supported: true, models: ['tpm-tis'], backendModels: ['emulator'], backendVersions: undefined },
    });
  });

  it('parseDomainCapabilities: <tpm supported=no> reports no TPM models or versions', () => {
    const xml = "<domainCapabilities><domain>qemu</domain><arch>x86_64</arch><devices><tpm supported='no'/></devices></domainCapabilities>";
    expect(parseDomainCapabilities(xml, 'x.xml').tpm).toEqual({ supported: false, models: [], backendModels: [], backendVersions: undefined });
  });
});

const fullText = readFixture('domcaps-x86_64-kvm-q35.xml');
const firstLines = (n: number): string => fullText.split('\n').slice(0, n).join('\n') + '\n';

const invalidCases = [
  {
    name: 'truncated at a line end (virsh interrupted)',
    xml: firstLines(150),
    details: { source: 'f.xml', line: 150, unclosed: ['domainCapabilities', 'devices', 'disk', 'enum'] },
    message: /ends at line 150 with <domainCapabilities> <devices> <disk> <enum> still open/,
  },
  {
    name: 'truncated inside a tag',
    xml: fullText.slice(0, 3000),
    details: { source: 'f.xml', line: 80, column: 58 },
    message: /f\.xml is not well-formed XML \(line 80, column 58\)/,
  },
  {
    name: 'last closing tag cut short',
    xml: fullText.trimEnd().slice(0, -5),
    details: { source: 'f.xml', line: 259 },
    message: /line 259/,
  },
  {
    name: 'mismatched closing tag',
    xml: '<domainCapabilities>\n  <domain>kvm</arch>\n</domainCapabilities>',
    details: { source: 'f.xml', line: 2 },
    message: /Expected closing tag 'domain'/,
  },
  { name: 'empty file', xml: '', details: { source: 'f.xml' }, message: /f\.xml is empty/ },
  {
    name: 'a virsh error message saved instead of XML',
    xml: 'error: failed to get emulator capabilities\n',
    details: { source: 'f.xml', line: 1, column: 1 },
    message: /not well-formed XML \(line 1, column 1\)/,
  },
  {
    name: 'the host capabilities instead of domain capabilities',
    xml: readFixture('capabilities.xml'),
    details: { source: 'f.xml', root: 'capabilities', expected: 'domainCapabilities' },
    message: /its root element is <capabilities>, expected <domainCapabilities>/,
  },
  {
    name: 'a domain definition (virsh dumpxml)',
    xml: "<domain type='kvm'><name>vm1</name></domain>",
    details: { root: 'domain' },
    message: /not libvirt domain capabilities: its root element is <domain>/,
  },
  {
    name: 'two documents concatenated',
    xml: fullText + fullText,
    details: { source: 'f.xml', line: 262 },
    message: /Multiple possible root nodes found/,
  },
  {
    name: 'two empty root elements (the validator lets these through)',
    xml: '<domainCapabilities/><domainCapabilities/>',
    details: { roots: ['domainCapabilities'] },
    message: /more than one root element \(<domainCapabilities> ×2\)/,
  },
  {
    name: 'two different root elements',
    xml: '<domainCapabilities/><capabilities/>',
    details: { roots: ['domainCapabilities', 'capabilities'] },
    message: /more than one root element \(<domainCapabilities>, <capabilities>\)/,
  },
  {
    name: 'no <arch>',
    xml: '<domainCapabilities><domain>kvm</domain></domainCapabilities>',
    details: { missing: 'arch' },
    message: /has no <arch> under <domainCapabilities>/,
  },
  {
    name: 'no <domain>',
    xml: '<domainCapabilities><arch>x86_64</arch></domainCapabilities>',
    details: { missing: 'domain' },
    message: /has no <domain>/,
  },
];

describe('parseDomainCapabilities: invalid input', () => {
  it.each(invalidCases)('parseDomainCapabilities: $name → FERRY_INVALID_XML', ({ xml, details, message }) => {
    expect(() => parseDomainCapabilities(xml, 'f.xml')).toThrow(message);
    expect(() => parseDomainCapabilities(xml, 'f.xml')).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_XML', details: expect.objectContaining(details) }));
  });
});
