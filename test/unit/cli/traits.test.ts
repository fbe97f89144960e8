import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { traitsJsonSchema } from '../../../src/contract/traits-document.js';
import { hostTraits } from '../../../src/traits/host-traits.js';
import { parseDomainCapabilities } from '../../../src/traits/parse-domain-capabilities.js';
import { parseHostCapabilities } from '../../../src/traits/parse-host-capabilities.js';
import { standardTraitCatalogue } from '../../../src/traits/trait-catalogue.js';
import { readFixture } from '../traits/domcaps-fixtures.js';
import { DOMCAPS, KVM_HOST, runFerry } from '../../helpers/run-ferry.js';

async function traitsJson(args: readonly string[]): Promise<ReturnType<typeof traitsJsonSchema.parse>> {
  const run = await runFerry(['traits', ...args, '--json']);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return traitsJsonSchema.parse(JSON.parse(run.stdout));
}

const imageTypes = (traits: readonly string[]): string[] =>
  traits.filter((t) => t.startsWith('COMPUTE_IMAGE_TYPE_')).map((t) => t.replace('COMPUTE_IMAGE_TYPE_', ''));

describe('ferry traits --json', () => {
  it('ferry traits: the recorded kvm host gives the same traits, reasons and unmapped values as hostTraits', async () => {
    const json = await traitsJson([...KVM_HOST, '--images-type', 'rbd', '--force-raw-images', 'false', '--swtpm']);
    const expected = hostTraits({
      virtType: 'kvm', storage: { imagesType: 'rbd', forceRawImages: false }, swtpmEnabled: true,
      domainCapabilities: ['domcaps-x86_64-kvm-pc.xml', 'domcaps-x86_64-kvm-q35.xml']
        .map((f) => parseDomainCapabilities(readFixture(f), f)),
      hostCapabilities: parseHostCapabilities(readFixture('capabilities.xml'), 'capabilities.xml'),
      libvirtVersion: '9.0.0', qemuVersion: '7.2.22',
    }, standardTraitCatalogue());
    expect(json.traits).toEqual(expected.traits);
    expect(json.reasons).toEqual(expected.reasons);
    expect(json.unmapped.map((u) => u.value)).toEqual(['ramfb', 'tpm-crb', 'tpm-tis']);
    expect(Object.keys(json.reasons).sort()).toEqual(json.traits);
    expect(json).toMatchObject({ catalogue_version: '2.9.0', virt_type: 'kvm', host_arch: 'x86_64', skipped_domcaps: [],
      domain_capabilities: ['domcaps-x86_64-kvm-pc.xml', 'domcaps-x86_64-kvm-q35.xml'] });
  });

  it.each([
    { case: 'nova defaults', flags: [], types: ['AKI', 'AMI', 'ARI', 'ISO', 'QCOW2', 'RAW'] },
    { case: 'rbd, force_raw_images=true', flags: ['--images-type', 'rbd'], types: ['AKI', 'AMI', 'ARI', 'ISO', 'QCOW2', 'RAW'] },
    { case: 'rbd, force_raw_images=false', flags: ['--images-type', 'rbd', '--force-raw-images', 'false'],
      types: ['AKI', 'AMI', 'ARI', 'ISO', 'RAW'] },
    { case: 'rbd, force_raw_images=false, qcow2:qcow2 mapped', types: ['AKI', 'AMI', 'ARI', 'ISO', 'QCOW2', 'RAW'],
      flags: ['--images-type', 'rbd', '--force-raw-images', 'no', '--images-type-mapping', 'qcow2:qcow2'] },
    { case: 'qcow2 backend with a ploop:ploop mapping', flags: ['--images-type', 'qcow2', '--images-type-mapping', 'ploop:ploop'],
      types: ['AKI', 'AMI', 'ARI', 'ISO', 'PLOOP', 'QCOW2', 'RAW'] },
    { case: 'lvm, force_raw_images=false, qemu', flags: ['--images-type', 'lvm', '--force-raw-images', 'false', '--virt-type', 'qemu'],
      types: ['AKI', 'AMI', 'ARI', 'ISO', 'RAW'] },
    { case: 'parallels', flags: ['--virt-type', 'parallels'], types: ['AKI', 'AMI', 'ARI', 'ISO', 'PLOOP', 'QCOW2', 'RAW'] },
    { case: 'exclude list wins over a mapping', types: ['AKI', 'AMI', 'ARI', 'ISO', 'RAW'],
      flags: ['--images-type', 'rbd', '--force-raw-images', 'false', '--images-type-mapping', 'qcow2:qcow2', '--image-type-exclude', 'QCOW2'] },
  ])('ferry traits: image types for $case', async ({ flags, types }) => {
    const json = await traitsJson(flags);
    expect(imageTypes(json.traits)).toEqual(types);
    expect(json.decided_families).toContain('COMPUTE_IMAGE_TYPE_');
  });

  it('ferry traits: the mapped qcow2 says which rule decided', async () => {
    const json = await traitsJson(['--images-type', 'rbd', '--force-raw-images', 'false', '--images-type-mapping', 'qcow2:qcow2']);
    expect(json.reasons.COMPUTE_IMAGE_TYPE_QCOW2).toMatch(/^the per-image backend mapping keeps qcow2 as-is on the qcow2 backend/);
    expect(json.storage.kept_formats).toMatchObject({ qcow2: 'qcow2', raw: 'rbd' });
  });

  it('ferry traits: [libvirt] swtpm_enabled of a later --nova-conf gives the TPM traits --swtpm gives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-traits-nova-'));
    const novaConf = join(dir, 'nova.conf');
    const computeConf = join(dir, 'nova-compute.conf');
    writeFileSync(novaConf, '[libvirt]\nvirt_type = kvm\nswtpm_enabled = false\n');
    writeFileSync(computeConf, '[libvirt]\nswtpm_enabled = True\n');
    const tpm = (traits: readonly string[]) => traits.filter((t) => t.startsWith('COMPUTE_SECURITY_TPM_'));
    const fromFlag = await traitsJson([...KVM_HOST, '--swtpm']);
    const fromConf = await traitsJson([...KVM_HOST, '--nova-conf', novaConf, '--nova-conf', computeConf]);
    const onlyFirst = await traitsJson([...KVM_HOST, '--nova-conf', novaConf]);
    rmSync(dir, { recursive: true });
    expect(tpm(fromFlag.traits)).not.toEqual([]);
    expect(tpm(fromConf.traits)).toEqual(tpm(fromFlag.traits));
    expect(fromConf.reasons).toEqual(fromFlag.reasons);
    expect(tpm(onlyFirst.traits)).toEqual([]);
    expect(onlyFirst.absent).toHaveProperty('COMPUTE_SECURITY_TPM_2_0');
  });

  it('ferry traits: storage comes from --nova-conf, and a flag wins over it', async () => {
    const conf = 'fixtures/config/nova-compute-edge.conf';
    const fromConf = await traitsJson(['--nova-conf', conf]);
    expect(fromConf.storage).toMatchObject({ images_type: 'rbd', force_raw_images: false, images_type_mapping: 'raw:rbd, qcow2:qcow2',
      image_type_exclude_list: ['vhd', 'vhdx', 'ploop'], virt_type: 'kvm' });
    expect(imageTypes(fromConf.traits)).toContain('QCOW2');
    const overridden = await traitsJson(['--nova-conf', conf, '--images-type-mapping', 'raw:rbd']);
    expect(overridden.storage.images_type_mapping).toBe('raw:rbd');
    expect(imageTypes(overridden.traits)).not.toContain('QCOW2');
  });

  it('ferry traits: a later --os-traits-version is used for the names (3.2.0 has igb; libvirt 9.0.0 does not enable it)', async () => {
    const json = await traitsJson([...KVM_HOST, '--os-traits-version', '3.2.0']);
    expect(json.catalogue_version).toBe('3.2.0');
    expect(json.traits).not.toContain('COMPUTE_NET_VIF_MODEL_IGB');
  });

  it('ferry traits: text output lists each trait with its reason', async () => {
    const run = await runFerry(['traits', ...KVM_HOST]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\d+ traits for a kvm host, arch x86_64/);
    expect(run.stdout).toMatch(/ {2}COMPUTE_SECURITY_UEFI_SECURE_BOOT +os\/loader\/enum\[@name='secure'\] value 'yes' in domcaps-x86_64-kvm-q35\.xml/);
    expect(run.stdout).toContain('unmapped (no trait in os-traits 2.9.0, so not reported):');
  });
});

describe('ferry traits: refusals', () => {
  it.each([
    { case: '--virsh with --domcaps', args: ['--virsh', '--domcaps', `${DOMCAPS}/domcaps-x86_64-kvm-pc.xml`], code: 'FERRY_INVALID_OPTION', exit: 2 },
    { case: '--libvirt-uri without --virsh', args: ['--libvirt-uri', 'qemu:///session'], code: 'FERRY_INVALID_OPTION', exit: 2 },
    { case: 'a bad boolean', args: ['--force-raw-images', 'maybe'], code: 'FERRY_INVALID_OPTION', exit: 2 },
    { case: 'an unknown virt type', args: ['--virt-type', 'xen'], code: 'FERRY_INVALID_OPTION', exit: 2 },
    { case: 'a missing file', args: ['--domcaps', `${DOMCAPS}/no-such.xml`], code: 'FERRY_INVALID_OPTION', exit: 2 },
    { case: 'capabilities given as domcaps', args: ['--domcaps', `${DOMCAPS}/capabilities.xml`], code: 'FERRY_INVALID_XML', exit: 40 },
    { case: 'qemu domcaps for a kvm host', args: ['--domcaps', `${DOMCAPS}/domcaps-x86_64-qemu-q35.xml`], code: 'FERRY_INVALID_OPTION', exit: 2 },
    { case: 'a mapping to an unknown backend', args: ['--images-type-mapping', 'qcow2:nfs'], code: 'FERRY_INVALID_MAPPING', exit: 45 },
    { case: 'an unknown os-traits version', args: ['--os-traits-version', '9.9.9'], code: 'FERRY_INVALID_OPTION', exit: 2 },
    // virsh is not installed on the build machine: the real execFile runner meets ENOENT.
    { case: '--virsh where virsh is not installed', args: ['--virsh'], code: 'FERRY_VIRSH', exit: 46 },
  ])('ferry traits: $case → $code (exit $exit)', async ({ args, code, exit }) => {
    const run = await runFerry(['traits', ...args, '--json']);
    expect(run.code).toBe(exit);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code } });
  });

  it('ferry traits --virsh without virsh: the hint names libvirt-clients and --domcaps', async () => {
    const run = await runFerry(['traits', '--virsh', '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { message: expect.stringMatching(/^virsh is not installed/) as unknown,
      hint: expect.stringMatching(/libvirt-clients.*--domcaps FILE/) as unknown } });
  });
});
