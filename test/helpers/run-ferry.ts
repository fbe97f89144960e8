// runCli in-process: a fake CliIo that collects stdout and stderr, no TTY (unless asked), no credentials in the environment.
import { Writable } from 'node:stream';
import type { Cloud } from '../../src/cloud/cloud.js';
import type { FerryConfig } from '../../src/config/ferry-config.js';
import type { Logger } from '../../src/logging/logger.js';
import { runCli, type CliIo } from '../../src/cli/run-cli.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function collector(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  return { stream, text: () => text };
}

export async function runFerry(argv: readonly string[], options: {
  env?: Record<string, string>;
  connect?: (config: FerryConfig, logger: Logger) => Promise<Cloud>;
  /** stdout is a terminal (stderr never is here: a live progress area needs a real one). */
  stdoutIsTTY?: boolean;
} = {}): Promise<CliRun> {
  const stdout = collector();
  const stderr = collector();
  const io: CliIo = {
    stdout: stdout.stream,
    stderr: stderr.stream as unknown as NodeJS.WriteStream,
    env: { FERRY_LOG_LEVEL: 'silent', ...options.env },
    cwd: process.cwd(),
    homeDir: '/nonexistent',
    signal: new AbortController().signal,
    stdoutIsTTY: options.stdoutIsTTY === true,
    stderrIsTTY: false,
    ...(options.connect ? { connect: options.connect } : {}),
  };
  const code = await runCli(argv, io);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** The recorded Debian 12 host's XML (fixtures/domcaps). */
export const DOMCAPS = 'fixtures/domcaps';
export const KVM_HOST = [
  '--domcaps', `${DOMCAPS}/domcaps-x86_64-kvm-pc.xml`, '--domcaps', `${DOMCAPS}/domcaps-x86_64-kvm-q35.xml`,
  '--capabilities', `${DOMCAPS}/capabilities.xml`, '--libvirt-version', '9.0.0', '--qemu-version', '7.2.22',
];
