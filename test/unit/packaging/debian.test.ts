// The Debian package's sources agree with each other and with the rest of the repository (the package itself is
// built, linted and installed by test/integration/deb).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = process.cwd();
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

describe('packaging/debian', () => {
  it('every lintian override has a comment giving its reason right above it', () => {
    const lines = read('packaging/debian/ferry.lintian-overrides').split('\n');
    const overrides = lines.map((line, at) => ({ line, at })).filter(({ line }) => /^ferry: /.test(line));
    expect(overrides.length).toBeGreaterThan(0);
    for (const { line, at } of overrides) {
      // Walk up over consecutive overrides of the same reason to the comment that covers them.
      let above = at - 1;
      while (above >= 0 && /^ferry: /.test(lines[above] ?? '')) above--;
      expect(lines[above] ?? '', `no reason comment above: ${line}`).toMatch(/^# \S/);
    }
  });

  it("the changelog's top entry is package.json's version, in Debian's format", () => {
    const version = (JSON.parse(read('package.json')) as { version: string }).version;
    const changelog = read('packaging/debian/changelog');
    expect(changelog.split('\n')[0]).toBe(`ferry (${version}) unstable; urgency=medium`);
    expect(changelog).toMatch(/^ -- .+ <[^@\s]+@[^>\s]+> {2}\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$/m);
  });

  it('copyright is DEP-5 and names the license of every part the package carries', () => {
    const copyright = read('packaging/debian/copyright');
    expect(copyright.split('\n')[0]).toBe('Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/');
    for (const files of ['*', 'usr/lib/ferry/node/*', 'usr/lib/ferry/node_modules/*']) expect(copyright).toContain(`\nFiles: ${files}\n`);
  });

  it('every unit the package ships runs /usr/bin/ferry (the agent through ferry-notify-exec), the path the package installs its launcher at', () => {
    const units = readdirSync(join(root, 'packaging/systemd')).filter((name) => name.endsWith('.service'));
    expect(units).toContain('ferry-agent.service');
    for (const unit of units) {
      const execs = read(`packaging/systemd/${unit}`).split('\n').filter((line) => line.startsWith('ExecStart='));
      expect(execs.length, unit).toBeGreaterThan(0);
      for (const exec of execs) expect(exec, unit).toMatch(/^ExecStart=(\/usr\/bin\/python3 -IS \/usr\/lib\/ferry\/bin\/ferry-notify-exec )?\/usr\/bin\/ferry /);
    }
    expect(read('packaging/debian/rules')).toContain('$(PKG)/usr/bin/ferry');
    expect(read('scripts/build-deb.sh')).toContain('exec /usr/lib/ferry/node/bin/node /usr/lib/ferry/bin/ferry "$@"');
  });

  it('the dpkg trigger watches the nova files the patch changes, awaited (test/integration/deb shows the ordering)', () => {
    const triggers = read('packaging/debian/ferry.triggers');
    expect(triggers).toContain('\ninterest-await /usr/lib/python3/dist-packages/nova/virt/libvirt/imagebackend.py\n');
    expect(triggers).toContain('\ninterest-await /usr/lib/python3/dist-packages/nova/conf/libvirt.py\n');
    expect(triggers).not.toMatch(/^interest-noawait /m);
  });

  it('the socket is never stopped or restarted on upgrade; the user ferry outlives purge', () => {
    expect(read('packaging/debian/rules')).toMatch(/dh_installsystemd --no-stop-on-upgrade ferry-agent\.socket/);
    const postrm = read('packaging/debian/ferry.postrm').split('\n').filter((line) => !line.trim().startsWith('#')).join('\n');
    expect(postrm).not.toMatch(/deluser|userdel|delgroup|groupdel/);
  });
});
