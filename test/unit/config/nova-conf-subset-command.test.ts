// Contract: bin/ferry-nova-conf-subset takes nova's config files as the unit passes them, `$FERRY_NOVA_CONF` of
// /etc/default/ferry-agent: a list separated by `:` (one argument), or several arguments; later files win per option.
// An empty list is a usage error naming the setting (exit 2); a missing file names the file and the setting (exit 1).
// Runs the command as the unit does (its shebang's node; it loads dist/, which `npm test` builds first).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
  const result = spawnSync(COMMAND, args, { encoding: 'utf8', timeout: RUN_MS });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The last value of an option in the subset: what oslo.config (and ferry) reads. */
function lastValue(text: string, option: string): string | undefined {
  return [...text.matchAll(new RegExp(`^${option} = (.*)$`, 'gm'))].at(-1)?.[1];
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

  it('a relative path: usage (exit 2)', () => {
    const { out } = novaFiles();
    expect(run(out, 'nova.conf').status).toBe(2);
  });
});
