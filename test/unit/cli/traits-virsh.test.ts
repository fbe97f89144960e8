import { describe, expect, it } from 'vitest';
import type { CommandContext, FlagValue } from '../../../src/cli/command-spec.js';
import { createTraitsCommand } from '../../../src/cli/commands/traits.js';
import { traitsJsonSchema } from '../../../src/contract/traits-document.js';
import { parseVirshVersion, traitsVirshXml } from '../../../src/cli/inputs/traits-virsh-xml.js';
import { resolveConfig } from '../../../src/config/resolve-config.js';
import { silentLogger } from '../../../src/logging/logger.js';
import type { CommandOutcome, CommandRunner } from '../../../src/rbd/command-runner.js';
import { readFixture } from '../traits/domcaps-fixtures.js';
import { KVM_HOST, runFerry } from '../../helpers/run-ferry.js';

// What `virsh version` prints on the recorded Debian 12 host (libvirt 9.0.0, QEMU 7.2).
const VERSION_TEXT = 'Compiled against library: libvirt 9.0.0\nUsing library: libvirt 9.0.0\nUsing API: QEMU 9.0.0\n' +
  'Running hypervisor: QEMU 7.2.22\n';

const ok = (stdout: string): CommandOutcome => ({ outcome: 'exited', exitCode: 0, signal: null, stdout, stderr: '' });
const refused = (stderr: string): CommandOutcome => ({ outcome: 'exited', exitCode: 1, signal: null, stdout: '', stderr });

/** A runner that never spawns: answers by the arguments after `virsh -c URI`, and records every call. */
function fakeVirsh(answers: Readonly<Record<string, CommandOutcome>>): CommandRunner & { calls: { file: string; args: string[]; timeoutMs: number }[] } {
  const calls: { file: string; args: string[]; timeoutMs: number }[] = [];
  return {
    calls,
    run(file, args, options) {
      calls.push({ file, args: [...args], timeoutMs: options.timeoutMs });
      const key = args.slice(2).join(' ');
      return Promise.resolve(answers[key] ?? refused(`error: no fake answer for '${key}'`));
    },
  };
}

const KVM_ANSWERS: Record<string, CommandOutcome> = {
  capabilities: ok(readFixture('capabilities.xml')),
  'domcapabilities --virttype kvm --arch i686 --machine pc': refused('error: internal error: unknown emulator\nerror: KVM is not available for i686 here'),
  'domcapabilities --virttype kvm --arch x86_64 --machine pc': ok(readFixture('domcaps-x86_64-kvm-pc.xml')),
  'domcapabilities --virttype kvm --arch x86_64 --machine q35': ok(readFixture('domcaps-x86_64-kvm-q35.xml')),
  version: ok(VERSION_TEXT),
};

describe('traitsVirshXml (injected runner)', () => {
  it('traitsVirshXml: kvm host: capabilities, then nova\'s domcapabilities calls, then version; a refused arch is dropped whole', async () => {
    const runner = fakeVirsh(KVM_ANSWERS);
    const xml = await traitsVirshXml({ virtType: 'kvm', runner, readVersions: true });
    expect(runner.calls.map((c) => [c.file, ...c.args].join(' '))).toEqual([
      'virsh -c qemu:///system capabilities',
      'virsh -c qemu:///system domcapabilities --virttype kvm --arch i686 --machine pc',
      'virsh -c qemu:///system domcapabilities --virttype kvm --arch x86_64 --machine pc',
      'virsh -c qemu:///system domcapabilities --virttype kvm --arch x86_64 --machine q35',
      'virsh -c qemu:///system version',
    ]);
    expect(runner.calls.every((c) => c.timeoutMs === 60_000)).toBe(true);
    expect(xml.domainCapabilities.map((d) => d.source)).toEqual(['virsh domcapabilities x86_64 pc', 'virsh domcapabilities x86_64 q35']);
    expect(xml.skipped).toEqual([{ arch: 'i686', command: 'virsh -c qemu:///system domcapabilities --virttype kvm --arch i686 --machine pc',
      error: 'error: KVM is not available for i686 here' }]);
    expect([xml.hostCapabilities.hostArch, xml.libvirtVersion, xml.qemuVersion]).toEqual(['x86_64', '9.0.0', '7.2.22']);
  });

  it('traitsVirshXml: lxc asks lxc:/// for capabilities only (nova reads no domain capabilities for lxc)', async () => {
    const runner = fakeVirsh({ capabilities: ok(readFixture('capabilities.xml')) });
    const xml = await traitsVirshXml({ virtType: 'lxc', runner, readVersions: false });
    expect(runner.calls.map((c) => c.args.join(' '))).toEqual(['-c lxc:/// capabilities']);
    expect(xml.domainCapabilities).toEqual([]);
  });

  it('traitsVirshXml: an explicit URI is used for every call', async () => {
    const runner = fakeVirsh(KVM_ANSWERS);
    await traitsVirshXml({ virtType: 'kvm', runner, readVersions: false, uri: 'qemu:///embed?root=/tmp/x' });
    expect(runner.calls.map((c) => c.args.slice(0, 2).join(' '))).toEqual(Array(4).fill('-c qemu:///embed?root=/tmp/x'));
  });

  const failures: readonly { case: string; outcome: CommandOutcome; message: RegExp; hint: RegExp }[] = [
    { case: 'not installed', outcome: { outcome: 'failed', message: 'spawn virsh ENOENT', errorCode: 'ENOENT' },
      message: /^virsh is not installed on this host/, hint: /libvirt-clients/ },
    { case: 'refused', outcome: refused('error: failed to connect to the hypervisor\nerror: Failed to connect socket to \'/var/run/libvirt/virtqemud-sock\': No such file or directory'),
      message: /virsh -c qemu:\/\/\/system capabilities failed \(exit 1\): error: Failed to connect socket/, hint: /libvirtd runs/ },
    { case: 'hung', outcome: { outcome: 'timed-out', timeoutMs: 60_000, stdout: '', stderr: '' },
      message: /did not finish within 60000 ms/, hint: /run the same command by hand/ },
  ];
  it.each(failures)('traitsVirshXml: capabilities $case → FERRY_VIRSH', async ({ outcome, message, hint }) => {
    const runner = fakeVirsh({ capabilities: outcome });
    await expect(traitsVirshXml({ virtType: 'kvm', runner, readVersions: true }))
      .rejects.toMatchObject({ code: 'FERRY_VIRSH', message: expect.stringMatching(message) as unknown, hint: expect.stringMatching(hint) as unknown });
    expect(runner.calls).toHaveLength(1);
  });

  it('traitsVirshXml: an abort is FERRY_ABORTED', async () => {
    const runner = fakeVirsh({ capabilities: { outcome: 'aborted' } });
    await expect(traitsVirshXml({ virtType: 'kvm', runner, readVersions: true })).rejects.toMatchObject({ code: 'FERRY_ABORTED' });
  });

  it.each([
    { case: 'Debian 12', text: VERSION_TEXT, expected: { libvirt: '9.0.0', qemu: '7.2.22' } },
    { case: 'no hypervisor line (lxc)', text: 'Compiled against library: libvirt 9.0.0\nUsing library: libvirt 9.0.0\n',
      expected: { libvirt: '9.0.0', qemu: undefined } },
    { case: 'garbage', text: 'hello', expected: { libvirt: undefined, qemu: undefined } },
  ])('parseVirshVersion: $case', ({ text, expected }) => {
    expect(parseVirshVersion(text)).toEqual(expected);
  });
});

function context(flags: Record<string, FlagValue>, novaConf?: string): CommandContext {
  return {
    args: [], flags, json: true, logger: silentLogger, signal: new AbortController().signal,
    config: resolveConfig({ flags: novaConf === undefined ? {} : { 'nova-conf': '/etc/nova/nova.conf' }, env: {}, cwd: process.cwd(),
      homeDir: '/nonexistent', readFile: (path) => (path === '/etc/nova/nova.conf' ? novaConf : undefined) }),
    progress: { update: () => undefined, log: () => undefined, clear: () => undefined },
    readFile: () => { throw new Error('no file should be read with --virsh'); },
    spentMs: () => 0,
    connect: () => Promise.reject(new Error('ferry traits must not connect to a cloud')),
  };
}

describe('ferry traits --virsh (injected runner)', () => {
  it('ferry traits --virsh: the same traits as the XML files, with the versions virsh reported', async () => {
    const command = createTraitsCommand({ runner: fakeVirsh(KVM_ANSWERS) });
    const fromVirsh = traitsJsonSchema.parse(command.toJson(await command.run(context({ virsh: true }))));
    const fromFiles = await runFerry(['traits', ...KVM_HOST, '--json']);
    const files = traitsJsonSchema.parse(JSON.parse(fromFiles.stdout));
    expect(fromVirsh.traits).toEqual(files.traits);
    expect(fromVirsh.traits).toContain('COMPUTE_VIOMMU_MODEL_VIRTIO');
    expect(fromVirsh.skipped_domcaps.map((s) => s.arch)).toEqual(['i686']);
  });

  it('ferry traits --virsh: nova.conf [libvirt] hw_machine_type and connection_uri decide what virsh is asked, as in nova', async () => {
    const runner = fakeVirsh(KVM_ANSWERS);
    await createTraitsCommand({ runner }).run(context({ virsh: true, 'libvirt-version': '9.0.0', 'qemu-version': '7.2.22' },
      '[libvirt]\nhw_machine_type = x86_64=q35,i686=pc\nconnection_uri = qemu:///system?socket=/run/libvirt/virtqemud-sock\n'));
    expect(runner.calls.map((c) => c.args.join(' '))).toEqual([
      '-c qemu:///system?socket=/run/libvirt/virtqemud-sock capabilities',
      '-c qemu:///system?socket=/run/libvirt/virtqemud-sock domcapabilities --virttype kvm --arch i686 --machine pc',
      '-c qemu:///system?socket=/run/libvirt/virtqemud-sock domcapabilities --virttype kvm --arch x86_64 --machine q35',
      '-c qemu:///system?socket=/run/libvirt/virtqemud-sock domcapabilities --virttype kvm --arch x86_64 --machine pc',
    ]);
  });

  it('ferry traits --virsh with both versions given: no `virsh version` call', async () => {
    const runner = fakeVirsh(KVM_ANSWERS);
    await createTraitsCommand({ runner }).run(context({ virsh: true, 'libvirt-version': '9.0.0', 'qemu-version': '7.2.22' }));
    expect(runner.calls.map((c) => c.args[2])).not.toContain('version');
  });
});
