// runCli in-process against a scripted Glance: no credentials needed (connect is injected), stdout and stderr
// collected, an AbortSignal the test controls (Ctrl-C), TTY or not.
import { Writable } from 'node:stream';
import type { Cloud } from '../../../src/cloud/cloud.js';
import { runCli } from '../../../src/cli/run-cli.js';
import type { GlanceClient } from '../../../src/glance/glance-client.js';
import { copyContext } from '../../helpers/scripted-glance.js';

export interface HarnessRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function collector(tty: boolean): { stream: Writable & { isTTY?: boolean; columns?: number }; text: () => string } {
  let text = '';
  const stream = Object.assign(new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  }), tty ? { isTTY: true, columns: 120, rows: 40 } : {});
  return { stream, text: () => text };
}

/** The project of the scripted credential: it owns the scripted images (test/helpers/image-body.ts). */
export const SCRIPTED_PROJECT = '11111111111111111111111111111111';

/** A Cloud around a scripted Glance: what the commands use of it is the CopyContext, and the token's project. */
export function scriptedCloud(glance: GlanceClient): Cloud {
  return { ...copyContext(glance), projectId: () => Promise.resolve(SCRIPTED_PROJECT), close: () => Promise.resolve() } as unknown as Cloud;
}

export async function runWith(argv: readonly string[], glance: GlanceClient, options: {
  signal?: AbortSignal; tty?: boolean; readFile?: (path: string) => string;
} = {}): Promise<HarnessRun> {
  const stdout = collector(false);
  const stderr = collector(options.tty === true);
  const code = await runCli(argv, {
    stdout: stdout.stream,
    stderr: stderr.stream as unknown as NodeJS.WriteStream,
    env: { FERRY_LOG_LEVEL: 'silent', OS_AUTH_URL: 'http://keystone.invalid/v3', OS_TOKEN: 'scripted' },
    cwd: process.cwd(),
    homeDir: '/nonexistent',
    signal: options.signal ?? new AbortController().signal,
    stdoutIsTTY: false,
    stderrIsTTY: options.tty === true,
    connect: () => Promise.resolve(scriptedCloud(glance)),
    ...(options.readFile ? { readFile: options.readFile } : {}),
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
