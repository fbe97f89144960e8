import { FerryError } from '../../errors/ferry-error.js';
import type { CommandOutcome, CommandRunner } from '../../rbd/command-runner.js';
import { parseDomainCapabilities } from '../../traits/parse-domain-capabilities.js';
import type { DomainCapabilities } from '../../traits/parse-domain-capabilities.js';
import { parseHostCapabilities } from '../../traits/parse-host-capabilities.js';
import type { HostCapabilities } from '../../traits/parse-host-capabilities.js';
import { planDomcapsQueries } from '../../traits/plan-domcaps-queries.js';
import type { SkippedDomcaps } from '../../traits/traits-command-report.js';
import type { VirtType } from '../../traits/virt-type.js';

// The I/O edge of `ferry traits --virsh`: ask the local libvirt what nova's driver would ask it
// (placement-and-traits.md §9.3), through the virsh CLI, without a shell.

export interface VirshOptions {
  readonly virtType: VirtType;
  /** Default: nova's URI for the virt type ([libvirt] connection_uri unset). */
  readonly uri?: string;
  /** `[libvirt] hw_machine_type`: the default machine type per arch nova asks libvirt about. */
  readonly machineTypes?: Readonly<Record<string, string>>;
  readonly runner: CommandRunner;
  /** Per virsh call; the first call of an embedded driver probes every QEMU binary (≈ 8 s). */
  readonly timeoutMs?: number;
  /** Also run `virsh version` (when the libvirt/QEMU versions were not given). */
  readonly readVersions: boolean;
  readonly signal?: AbortSignal;
}

export interface VirshHostXml {
  readonly hostCapabilities: HostCapabilities;
  readonly domainCapabilities: readonly DomainCapabilities[];
  readonly libvirtVersion: string | undefined;
  readonly qemuVersion: string | undefined;
  readonly skipped: readonly SkippedDomcaps[];
  /** Every virsh invocation, in order (arguments after `virsh`). */
  readonly commands: readonly string[];
}

export const VIRSH_DEFAULTS = { binary: 'virsh', timeoutMs: 60_000 } as const;

/** nova's `LibvirtDriver._uri()` when `[libvirt] connection_uri` is empty. */
export const NOVA_LIBVIRT_URIS: Readonly<Record<VirtType, string>> = {
  kvm: 'qemu:///system', qemu: 'qemu:///system', lxc: 'lxc:///', parallels: 'parallels:///system',
};

/**
 * `virsh capabilities`, then each `virsh domcapabilities` nova would make (planDomcapsQueries), then optionally
 * `virsh version`; parsed. A domcapabilities call that fails drops its arch (listed in `skipped`), as nova does;
 * any other failure is FERRY_VIRSH with virsh's own message.
 */
export async function traitsVirshXml(options: VirshOptions): Promise<VirshHostXml> {
  const uri = options.uri ?? NOVA_LIBVIRT_URIS[options.virtType];
  const commands: string[] = [];
  const virsh = async (args: readonly string[]): Promise<CommandOutcome & { readonly shown: string }> => {
    const full = ['-c', uri, ...args];
    commands.push(full.join(' '));
    const outcome = await options.runner.run(VIRSH_DEFAULTS.binary, full, {
      timeoutMs: options.timeoutMs ?? VIRSH_DEFAULTS.timeoutMs, ...(options.signal ? { signal: options.signal } : {}),
    });
    return { ...outcome, shown: `virsh ${full.join(' ')}` };
  };

  const caps = await virsh(['capabilities']);
  const hostCapabilities = parseHostCapabilities(succeeded(caps), 'virsh capabilities');
  const domainCapabilities: DomainCapabilities[] = [];
  const skipped: SkippedDomcaps[] = [];
  const dropped = new Set<string>();
  for (const query of planDomcapsQueries(hostCapabilities, options.virtType, options.machineTypes)) {
    if (dropped.has(query.arch)) continue;
    const answer = await virsh(query.argv);
    if (answer.outcome === 'exited' && answer.exitCode !== 0) {
      dropped.add(query.arch);
      skipped.push(Object.freeze({ arch: query.arch, command: answer.shown, error: lastLine(answer.stderr) }));
      continue;
    }
    const label = `virsh domcapabilities ${query.arch}${query.machine === undefined ? '' : ` ${query.machine}`}`;
    domainCapabilities.push(parseDomainCapabilities(succeeded(answer), label));
  }
  const versions = options.readVersions ? await readVersions(virsh) : { libvirt: undefined, qemu: undefined };
  return Object.freeze({
    hostCapabilities,
    domainCapabilities: Object.freeze(domainCapabilities.filter((caps) => !dropped.has(caps.arch))),
    libvirtVersion: versions.libvirt,
    qemuVersion: versions.qemu,
    skipped: Object.freeze(skipped),
    commands: Object.freeze(commands),
  });
}

/** `virsh version`: `Using library: libvirt 9.0.0` and `Running hypervisor: QEMU 7.2.22`; unknown when absent. */
export function parseVirshVersion(text: string): { readonly libvirt: string | undefined; readonly qemu: string | undefined } {
  return {
    libvirt: /^Using library: libvirt (\d+(?:\.\d+)*)/m.exec(text)?.[1],
    qemu: /^Running hypervisor: QEMU (\d+(?:\.\d+)*)/m.exec(text)?.[1],
  };
}

async function readVersions(virsh: (args: readonly string[]) => Promise<CommandOutcome>): Promise<ReturnType<typeof parseVirshVersion>> {
  const answer = await virsh(['version']);
  // Versions only ever add traits; without them ferry claims and removes none of the version-gated ones.
  if (answer.outcome !== 'exited' || answer.exitCode !== 0) {
    if (answer.outcome === 'aborted') throw aborted('virsh version');
    return { libvirt: undefined, qemu: undefined };
  }
  return parseVirshVersion(answer.stdout);
}

function succeeded(outcome: CommandOutcome & { readonly shown: string }): string {
  const shown = outcome.shown;
  switch (outcome.outcome) {
    case 'exited':
      if (outcome.exitCode === 0) return outcome.stdout;
      throw new FerryError('FERRY_VIRSH',
        `${shown} failed (${outcome.exitCode === null ? `killed by ${outcome.signal ?? 'a signal'}` : `exit ${outcome.exitCode}`})` +
          `: ${lastLine(outcome.stderr) || '(no message)'}`,
        'Check that libvirtd runs and that this user may use the URI (group libvirt for qemu:///system); give another URI ' +
          'with --libvirt-uri, or collect the XML where virsh works and pass --capabilities FILE and --domcaps FILE.',
        { command: shown, exitCode: outcome.exitCode, stderr: lastLine(outcome.stderr) });
    case 'timed-out':
      throw new FerryError('FERRY_VIRSH', `${shown} did not finish within ${outcome.timeoutMs} ms and was killed`,
        'libvirt may be hung or probing QEMU for the first time; run the same command by hand, then retry.',
        { command: shown, timeoutMs: outcome.timeoutMs });
    case 'aborted':
      throw aborted(shown);
    case 'failed':
      throw new FerryError('FERRY_VIRSH',
        outcome.errorCode === 'ENOENT' ? `virsh is not installed on this host (${outcome.message})` : `could not run virsh: ${outcome.message}`,
        outcome.errorCode === 'ENOENT'
          ? 'Install libvirt-clients (Debian/Ubuntu: apt-get install libvirt-clients), or collect the XML elsewhere and pass ' +
            '--capabilities FILE and --domcaps FILE (docs/traits.md shows the virsh commands).'
          : 'Run the same command by hand to see what is wrong, or pass --capabilities FILE and --domcaps FILE.',
        { command: shown, errorCode: outcome.errorCode });
  }
}

function aborted(shown: string): FerryError {
  return new FerryError('FERRY_ABORTED', `${shown} was interrupted`, 'Nothing to do: the operation was cancelled.', { command: shown });
}

function lastLine(text: string): string {
  return text.trim().split('\n').map((line) => line.trim()).filter((line) => line !== '').at(-1) ?? '';
}
