// scripts/deb-newer.sh: the upgrade tests' newer .debs are the first build's packages under VERSION+SUFFIX — the same
// files with their modes, the control file's Version and ferry's Depends on python3-ferry-agent moved, a rebuild's
// changelog entry with md5sums following it — and bad arguments are refused before anything is written.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'ferry-deb-newer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** dpkg-deb or md5sum on a package of a few files: milliseconds, seconds on a busy machine. */
const DPKG_MS = 10_000;
/** The script: two unpacks and two packs of a few files. */
const SCRIPT_MS = 30_000;
/** A test's limit: its spawns one after another (a first build is 8, the check up to 30 in all). */
const TEST_MS = 30 * DPKG_MS + 2 * SCRIPT_MS;

const run = (command: string, args: readonly string[]) => spawnSync(command, args, { encoding: 'utf8', timeout: DPKG_MS });

/** A package as debian/rules lays it out: a control file, a changelog, md5sums, and FILES (path → [content, mode]). */
function packageDeb(out: string, name: string, arch: string, control: string, files: Record<string, [string, number]>, changelog = true): void {
  const root = join(dir, `root-${name}`);
  rmSync(root, { recursive: true, force: true });
  const all: Record<string, [Buffer, number]> = {
    ...(changelog ? { [`usr/share/doc/${name}/changelog.gz`]: [gzipSync('ferry (0.1.0) unstable; urgency=medium\n\n  * First.\n\n -- ferry maintainers <ferry@lists.example.org>  Wed, 25 Nov 2026 03:00:00 +0000\n'), 0o644] as [Buffer, number] } : {}),
    ...Object.fromEntries(Object.entries(files).map(([path, [text, mode]]) => [path, [Buffer.from(text), mode]])),
  };
  const sums: string[] = [];
  for (const [path, [bytes, mode]] of Object.entries(all)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), bytes);
    chmodSync(join(root, path), mode);
    sums.push(spawnSync('md5sum', [path], { cwd: root, encoding: 'utf8', timeout: DPKG_MS }).stdout.trim());
  }
  mkdirSync(join(root, 'DEBIAN'));
  writeFileSync(join(root, 'DEBIAN', 'control'), `Package: ${name}\n${control}Architecture: ${arch}\nMaintainer: ferry <ferry@localhost>\nDescription: test\n`);
  writeFileSync(join(root, 'DEBIAN', 'md5sums'), `${sums.join('\n')}\n`);
  const built = run('dpkg-deb', ['--root-owner-group', '-b', root, join(out, `${name}_0.1.0_${arch}.deb`)]);
  expect(built.status, built.stderr).toBe(0);
}

function firstBuild(name: string, { clientChangelog = true } = {}): string {
  const out = join(dir, name);
  mkdirSync(out);
  packageDeb(out, 'ferry', 'amd64', 'Version: 0.1.0\nDepends: adduser, python3-ferry-agent (= 0.1.0)\n', {
    'usr/lib/ferry/bin/ferry': ['#!/bin/sh\n', 0o755],
    'etc/default/ferry-agent': ['FERRY_NOVA_PATCH=no\n', 0o600],
  });
  packageDeb(out, 'python3-ferry-agent', 'all', 'Version: 0.1.0\nDepends: python3:any\n', {
    'usr/lib/python3/dist-packages/ferry_agent.py': ['"""client"""\n', 0o644],
  }, clientChangelog);
  return out;
}

const newer = (args: readonly string[]) => spawnSync('bash', ['scripts/deb-newer.sh', ...args], { encoding: 'utf8', timeout: SCRIPT_MS });

describe('scripts/deb-newer.sh', () => {
  it('makes ferry and python3-ferry-agent 0.1.0+rebuild2 from a build: Version, ferry\'s Depends, a changelog entry on top, md5sums right, every file and mode as it was', () => {
    const from = firstBuild('first');
    const out = join(dir, 'newer');
    const made = newer(['--from', from, '--out', out, '--version-suffix', '+rebuild2']);
    expect(made.status, made.stderr).toBe(0);
    const [ferry, client] = made.stdout.trim().split('\n');
    expect([ferry, client]).toEqual([join(out, 'ferry_0.1.0+rebuild2_amd64.deb'), join(out, 'python3-ferry-agent_0.1.0+rebuild2_all.deb')]);
    expect(run('dpkg-deb', ['-f', ferry ?? '', 'Version', 'Depends']).stdout).toBe('Version: 0.1.0+rebuild2\nDepends: adduser, python3-ferry-agent (= 0.1.0+rebuild2)\n');
    expect(run('dpkg-deb', ['-f', client ?? '', 'Version', 'Depends']).stdout).toBe('Version: 0.1.0+rebuild2\nDepends: python3:any\n');
    const listing = (deb: string) => run('dpkg-deb', ['-c', deb]).stdout.trim().split('\n').map((line) => { const f = line.split(/\s+/); return `${f[0] ?? ''} ${f[1] ?? ''} ${f[5] ?? ''}`; });
    expect(listing(ferry ?? '')).toEqual(listing(join(from, 'ferry_0.1.0_amd64.deb')));
    expect(listing(ferry ?? '')).toContain('-rw------- root/root ./etc/default/ferry-agent');

    for (const [deb, name] of [[ferry ?? '', 'ferry'], [client ?? '', 'python3-ferry-agent']] as const) {
      const unpacked = join(dir, `unpacked-${name}`);
      expect(run('dpkg-deb', ['-R', deb, unpacked]).status).toBe(0);
      const changelog = gunzipSync(readFileSync(join(unpacked, 'usr/share/doc', name, 'changelog.gz'))).toString();
      expect(changelog.split('\n').slice(0, 3)).toEqual(['ferry (0.1.0+rebuild2) unstable; urgency=medium', '', '  * Rebuild (+rebuild2).']);
      expect(changelog).toContain('ferry (0.1.0) unstable; urgency=medium\n\n  * First.');
      const check = spawnSync('md5sum', ['--check', '--strict', 'DEBIAN/md5sums'], { cwd: unpacked, encoding: 'utf8', timeout: DPKG_MS });
      expect(check.status, check.stdout + check.stderr).toBe(0);
    }
  }, TEST_MS);

  it.each([
    [['--from', 'x', '--out', 'y', '--version-suffix', '+b2'], 'ends like a binNMU (+bN); use another suffix, e.g. +rebuild2'],
    [['--from', 'x', '--out', 'y', '--version-suffix', 'rebuild2'], "--version-suffix 'rebuild2' must start with + or ~"],
    [['--from', 'x', '--version-suffix', '+rebuild2'], '--from DIR, --out DIR and --version-suffix SUFFIX are all needed'],
    [['--in', 'x'], "unknown argument '--in'"],
  ])('%j is refused: %s', (args, message) => {
    const made = newer(args);
    expect(made.status).toBe(2);
    expect(made.stderr).toContain(message);
    expect(existsSync('y')).toBe(false);
  }, 2 * SCRIPT_MS);

  it('a folder without a build, or with ferry\'s .deb but not the client\'s, is named with the fix and nothing is written', () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const none = newer(['--from', empty, '--out', join(dir, 'out-1'), '--version-suffix', '+rebuild2']);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain(`${empty} holds 0 ferry_*_amd64.deb (one build's, from scripts/build-deb.sh --out ${empty})`);
    const from = firstBuild('client-missing');
    rmSync(join(from, 'python3-ferry-agent_0.1.0_all.deb'));
    const missing = newer(['--from', from, '--out', join(dir, 'out-2'), '--version-suffix', '+rebuild2']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`${join(from, 'python3-ferry-agent_0.1.0_all.deb')}: no such .deb`);
    expect(existsSync(join(dir, 'out-1'))).toBe(false);
    expect(existsSync(join(dir, 'out-2'))).toBe(false);
  }, TEST_MS);

  it('a client package it cannot repack leaves no newer ferry .deb behind: both or neither (a later run would take a lone one as built)', () => {
    const from = firstBuild('client-without-changelog', { clientChangelog: false });
    const out = join(dir, 'out-3');
    const made = newer(['--from', from, '--out', out, '--version-suffix', '+rebuild2']);
    expect(made.status).toBe(1);
    expect(made.stderr).toContain('has no /usr/share/doc/python3-ferry-agent/changelog.gz');
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  }, TEST_MS);
});
