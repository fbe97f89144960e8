// Contract: bin/ferry-nova-conf-subset takes nova's config files as the unit passes them, `$FERRY_NOVA_CONF` of
// /etc/default/ferry-agent: a list separated by `:` (one argument), or several arguments; later files win per option.
// An empty list is a usage error naming the setting (exit 2); a missing file names the file and the setting (exit 1).
// Runs the command as the unit does (its shebang's node; it loads dist/, which `npm test` builds first).
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const COMMAND = join(process.cwd(), 'bin', 'ferry-nova-conf-subset');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** nova.conf with a secret and the store, nova-compute.conf with virt_type and a second store name (it wins). */
function novaFiles(): { dir: string; novaConf: string; computeConf: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-conf-subset-'));
  dirs.push(dir);
  const novaConf = join(dir, 'nova.conf');
  const computeConf = join(dir, 'nova-compute.conf');
  writeFileSync(novaConf, '[database]\nconnection = mysql://nova:DB-SECRET@db/nova\n[libvirt]\nimages_rbd_glance_store_name = site-a\n');
  writeFileSync(computeConf, '[libvirt]\nvirt_type = qemu\nimages_rbd_glance_store_name = site-b\n');
  return { dir, novaConf, computeConf, out: join(dir, 'subset.conf') };
}

/** One run of the command (node starting the bundled CLI code): each test runs it once, with this limit. */
const RUN_MS = 30_000;

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return runWith({}, ...args);
}

function runWith(env: NodeJS.ProcessEnv, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(COMMAND, args, { encoding: 'utf8', timeout: RUN_MS, env: { ...process.env, ...env } });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The last value of an option in the subset: what oslo.config (and ferry) reads. */
function lastValue(text: string, option: string): string | undefined {
  return [...text.matchAll(new RegExp(`^${option} = (.*)$`, 'gm'))].at(-1)?.[1];
}

/**
 * A Node preload that wraps fs's writers (by name and by fd): after each call, every file of `agentDir` is replaced by
 * a symlink to `victim`, and the swap is counted in `swaps` beside it (so the test knows the race was played).
 */
function swapInSymlinkPreload(agentDir: string, victim: string): string {
  return `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
const agentDir = ${JSON.stringify(agentDir)};
const victim = ${JSON.stringify(victim)};
const swaps = join(agentDir, '..', 'swaps');
fs.appendFileSync(swaps, '');
const swap = () => {
  for (const name of fs.readdirSync(agentDir)) {
    const path = join(agentDir, name);
    fs.rmSync(path, { force: true });
    fs.symlinkSync(victim, path);
    fs.appendFileSync(swaps, name + '\\n');
  }
};
for (const name of ['writeFileSync', 'writeSync', 'appendFileSync']) {
  const original = fs[name];
  fs[name] = function (...args) {
    const result = original.apply(this, args);
    if (args[0] !== swaps) swap();
    return result;
  };
}
syncBuiltinESMExports();
`;
}

describe('bin/ferry-nova-conf-subset', { timeout: RUN_MS }, () => {
  it.each([
    ['one `:` list (FERRY_NOVA_CONF as the unit expands it)', (a: string, b: string) => [`${a}:${b}`]],
    ['several arguments', (a: string, b: string) => [a, b]],
  ])('%s: both files\' options, nova-compute.conf winning, no secret; 0644', (_name, argsOf) => {
    const { novaConf, computeConf, out } = novaFiles();
    const result = run(out, ...argsOf(novaConf, computeConf));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`of ${novaConf}, ${computeConf} → ${out}`);
    const subset = readFileSync(out, 'utf8');
    expect(lastValue(subset, 'virt_type')).toBe('qemu');
    expect(lastValue(subset, 'images_rbd_glance_store_name')).toBe('site-b');
    expect(subset).not.toContain('DB-SECRET');
    expect(statSync(out).mode & 0o777).toBe(0o644);
  });

  it('an empty FERRY_NOVA_CONF: exit 2 naming the setting and its form, nothing written', () => {
    const { out } = novaFiles();
    const result = run(out, '');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^ferry-nova-conf-subset: no nova config file given: set FERRY_NOVA_CONF in \/etc\/default\/ferry-agent/);
    expect(() => statSync(out)).toThrow();
  });

  it('a missing file of the list: exit 1 naming it and FERRY_NOVA_CONF, nothing written', () => {
    const { dir, novaConf, out } = novaFiles();
    const missing = join(dir, 'absent.conf');
    const result = run(out, `${novaConf}:${missing}`);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`cannot read ${missing} (ENOENT)`);
    expect(result.stderr).toContain('fix FERRY_NOVA_CONF in /etc/default/ferry-agent');
    expect(() => statSync(out)).toThrow();
  });

  it('-PATH (the packaged nova-compute.conf): read when it exists, skipped when absent; absent without the -: exit 1', () => {
    const { dir, novaConf, computeConf, out } = novaFiles();
    const present = run(out, `${novaConf}:-${computeConf}`);
    expect(present.status, present.stderr).toBe(0);
    expect(lastValue(readFileSync(out, 'utf8'), 'images_rbd_glance_store_name')).toBe('site-b');
    const absent = join(dir, 'absent-compute.conf');
    const skipped = run(out, `${novaConf}:-${absent}`);
    expect(skipped.status, skipped.stderr).toBe(0);
    expect(skipped.stdout).toContain(`of ${novaConf} → ${out}`);
    expect(lastValue(readFileSync(out, 'utf8'), 'images_rbd_glance_store_name')).toBe('site-a');
    // Every file optional and none there: the agent would run on nova's defaults.
    const none = run(out, `-${absent}`);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('(each is optional)');
  }, 3 * RUN_MS);

  // The unit runs it as root, and OUT's directory (/run/ferry-agent) is the agent's: a compromised agent may swap any
  // name in it at any moment. The preload below plays that agent at the worst moment: right after each write into a
  // file of OUT's directory, it replaces every other file there with a symlink to a file only its owner may read.
  // Whatever then touches a name of that directory must not follow it (the old chmod by name made the target 0644).
  it('a symlink swapped in after the write: the link\'s target keeps its mode (nothing follows a name in OUT\'s directory)', () => {
    const { dir, novaConf, computeConf } = novaFiles();
    const agentDir = join(dir, 'agent');
    const victim = join(dir, 'shadow');
    writeFileSync(victim, 'root:SECRET-HASH:19000:0:99999:7:::\n', { mode: 0o600 });
    chmodSync(victim, 0o600);
    const preload = join(dir, 'swap-in-symlink.mjs');
    writeFileSync(preload, swapInSymlinkPreload(agentDir, victim));
    mkdirSync(agentDir, { mode: 0o700 });
    const result = runWith({ NODE_OPTIONS: `--import=${preload}` }, join(agentDir, 'nova.conf'), `${novaConf}:${computeConf}`);
    expect(readFileSync(join(dir, 'swaps'), 'utf8')).not.toBe('');
    expect(statSync(victim).mode & 0o777).toBe(0o600);
    expect(readFileSync(victim, 'utf8')).toBe('root:SECRET-HASH:19000:0:99999:7:::\n');
    expect(result.stderr).not.toContain('SECRET-HASH');
    expect(lstatSync(agentDir).isDirectory()).toBe(true);
  });

  it('a relative path: usage (exit 2)', () => {
    const { out } = novaFiles();
    expect(run(out, 'nova.conf').status).toBe(2);
  });
});
