// One soak compute node's nova: scripts/soak/nova_node.py as a child, nova imported once, one command at a time.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface BootAnswer {
  readonly boot: string;
  readonly ok: boolean;
  readonly error?: string;
  readonly message?: string;
  readonly seconds: number;
  readonly warnings: readonly string[];
  readonly asked_again: number;
}

export interface DeleteAnswer {
  readonly delete: string;
  readonly ok: boolean;
  readonly error?: string;
}

export interface NovaNode {
  readonly child: ChildProcess;
  /** Resolves once nova is imported, with the seconds that took. */
  readonly imported: Promise<number>;
  boot(name: string, image: string, token: string): Promise<BootAnswer>;
  delete(name: string): Promise<DeleteAnswer>;
  /** Close stdin (the script ends after its last answer), SIGTERM after `graceMs`. */
  stop(graceMs?: number): Promise<number | null>;
  stderr(): string;
}

const PYTHON = '/usr/bin/python3';

/** Start the node's nova (`root`: patchedNova's, `conf`: novaConf of the node's site and agent socket). */
export function startNovaNode(root: string, conf: string, limitSeconds: number): NovaNode {
  const cwd = process.cwd();
  const child = spawn('timeout', [String(limitSeconds), PYTHON, '-I', join(cwd, 'scripts/soak/nova_node.py'), root, conf, join(cwd, 'integrations/nova')],
    { cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting: ((line: unknown) => void)[] = [];
  let stderr = '';
  let pending = '';
  let onImported: (seconds: number) => void = () => undefined;
  let onFailed: (error: Error) => void = () => undefined;
  const imported = new Promise<number>((resolve, reject) => { onImported = resolve; onFailed = reject; });
  child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-8000); });
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const parsed = JSON.parse(line) as { imported?: boolean; import_seconds?: number };
      if (parsed.imported === true) onImported(parsed.import_seconds ?? 0);
      else waiting.shift()?.(parsed);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => {
    onFailed(new Error(`nova_node.py exited ${code} before nova was imported: ${stderr}`));
    for (const resolveLine of waiting.splice(0)) resolveLine({ ok: false, error: 'NodeExited', message: `nova_node.py exited ${code}`, seconds: 0, warnings: [], asked_again: 0 });
    resolve(code);
  }));
  const send = <T>(command: Record<string, string>): Promise<T> => new Promise((resolve) => {
    waiting.push(resolve as (line: unknown) => void);
    child.stdin?.write(`${JSON.stringify(command)}\n`);
  });
  return {
    child, imported,
    boot: (name, image, token) => send<BootAnswer>({ boot: name, image, token }),
    delete: (name) => send<DeleteAnswer>({ delete: name }),
    async stop(graceMs = 120_000) {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGTERM'), graceMs); // timeout(1) passes it on to python
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    stderr: () => stderr,
  };
}
