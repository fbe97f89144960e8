// The Debian source package (debian/) agrees with itself and with the rest of the repository (the packages themselves
// are built from a clean clone by dpkg-buildpackage, linted and installed by test/integration/deb).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFerry } from '../../helpers/run-ferry.js';

const root = process.cwd();
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

/** One binary package's stanza of debian/control, continuation lines joined. */
function stanzaOf(control: string, name: string): Record<string, string> {
  const stanza = control.split(/\n\n+/).find((block) => block.startsWith(`Package: ${name}\n`)) ?? '';
  return Object.fromEntries([...stanza.replace(/\n /g, ' ').matchAll(/^([\w-]+): (.*)$/gm)].map((match) => [match[1] ?? '', match[2] ?? '']));
}

/** The docs pages debian/rules installs in /usr/share/doc/ferry (DOC_DIRS: every .md of each), relative to docs/. */
function installedDocs(): string[] {
  const dirs = /^DOC_DIRS := (.+)$/m.exec(read('debian/rules'))?.[1]?.split(' ') ?? [];
  return dirs.flatMap((dir) => readdirSync(join(root, dir)).filter((name) => name.endsWith('.md')).map((name) => join(dir, name).replace(/^docs\//, '')));
}

describe('debian/ (the source package)', () => {
  it('/usr/share/doc/ferry holds every page a shipped page links to (cli.md, evict.md, operator-guide.md, deploy/ …), and the one ferry --help names', async () => {
    const shipped = installedDocs();
    expect(shipped).toEqual(expect.arrayContaining(['cli.md', 'evict.md', 'operator-guide.md', 'agent.md', 'deploy/README.md']));
    const missing = shipped.flatMap((page) => [...read(join('docs', page)).matchAll(/\]\(([^)#:\s]+\.md)(#[^)]*)?\)/g)]
      .map((link) => normalize(join(dirname(page), link[1] ?? '')))
      .filter((target) => !target.startsWith('..') && existsSync(join(root, 'docs', target)) && !shipped.includes(target))
      .map((target) => `${page} → ${target}`));
    expect(missing).toEqual([]);
    const help = (await runFerry(['--help'])).stdout;
    const named = /Docs: (\S+\.md) in \/usr\/share\/doc\/ferry\//.exec(help)?.[1];
    expect(named, help).toBeDefined();
    expect(shipped).toContain(named);
  });


  it.each([['debian/ferry.lintian-overrides', /^ferry: /], ['debian/source/lintian-overrides', /^ferry source: /]])('every lintian override in %s has a comment giving its reason right above it', (file, override) => {
    const lines = read(file).split('\n');
    const overrides = lines.map((line, at) => ({ line, at })).filter(({ line }) => override.test(line));
    expect(overrides.length).toBeGreaterThan(0);
    for (const { line, at } of overrides) {
      // Walk up over consecutive overrides of the same reason to the comment that covers them.
      let above = at - 1;
      while (above >= 0 && override.test(lines[above] ?? '')) above--;
      expect(lines[above] ?? '', `no reason comment above: ${line}`).toMatch(/^# \S/);
    }
  });

  it("the changelog's top entry is package.json's version, in Debian's format", () => {
    const version = (JSON.parse(read('package.json')) as { version: string }).version;
    const changelog = read('debian/changelog');
    expect(changelog.split('\n')[0]).toBe(`ferry (${version}) unstable; urgency=medium`);
    expect(changelog).toMatch(/^ -- .+ <[^@\s]+@[^>\s]+> {2}\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$/m);
  });

  it('copyright is DEP-5 and names the license of every part the package carries', () => {
    const copyright = read('debian/copyright');
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
    expect(read('debian/rules')).toContain('$(PKG)/usr/bin/ferry');
    expect(read('debian/rules')).toContain('install -m 0755 debian/ferry-launcher $(PKG)/usr/bin/ferry');
    expect(read('debian/ferry-launcher')).toContain('exec /usr/lib/ferry/node/bin/node /usr/lib/ferry/bin/ferry "$@"');
  });

  it('the dpkg trigger watches the nova files the patch changes, awaited (test/integration/deb shows the ordering)', () => {
    const triggers = read('debian/ferry.triggers');
    expect(triggers).toContain('\ninterest-await /usr/lib/python3/dist-packages/nova/virt/libvirt/imagebackend.py\n');
    expect(triggers).toContain('\ninterest-await /usr/lib/python3/dist-packages/nova/conf/libvirt.py\n');
    expect(triggers).not.toMatch(/^interest-noawait /m);
  });

  it('the socket is never stopped or restarted on upgrade; the user ferry outlives purge', () => {
    expect(read('debian/rules')).toMatch(/dh_installsystemd --no-stop-on-upgrade ferry-agent\.socket/);
    const postrm = read('debian/ferry.postrm').split('\n').filter((line) => !line.trim().startsWith('#')).join('\n');
    expect(postrm).not.toMatch(/deluser|userdel|delgroup|groupdel/);
  });

  it('is a native source package whose build is debian/rules\' own (the artifact\'s steps), not a copy of a staged tree', () => {
    expect(read('debian/source/format').trim()).toBe('3.0 (native)');
    const rules = read('debian/rules');
    expect(rules).toMatch(/^override_dh_auto_build-arch:\n\tnpm ci .*\n(\t.*\n)*\tscripts\/build-artifact\.sh --tree \$\(TREE\)$/m);
    expect(rules).toMatch(/^override_dh_auto_clean:\n\trm -rf \$\(BUILT\)$/m);
    expect(rules).not.toMatch(/\bstage\//);
    const control = read('debian/control');
    expect(control).toMatch(/^Build-Depends: debhelper-compat \(= 13\), dh-sequence-python3, python3:any$/m);
    expect(control).toMatch(/^Build-Depends-Arch: nodejs \(>= 20\.19\), npm, help2man$/m);
  });

  it('nova\'s client is its own arch:all package python3-ferry-agent, installed by dh_python3, and ferry depends on that very build', () => {
    const control = read('debian/control');
    const client = stanzaOf(control, 'python3-ferry-agent');
    expect(client).toMatchObject({ Architecture: 'all', Section: 'python', Depends: '${python3:Depends}, ${misc:Depends}' });
    // = ${source:Version}: an arch:any package depending on an arch:all one by ${binary:Version} cannot be binNMUed
    // (lintian: not-binnmuable-any-depends-all).
    expect(stanzaOf(control, 'ferry').Depends?.split(/,\s*/)).toContain('python3-ferry-agent (= ${source:Version})');
    const rules = read('debian/rules');
    expect(rules).toContain('install -D -m 0644 integrations/nova/ferry_agent.py $(PYPKG)/usr/lib/python3/dist-packages/ferry_agent.py');
    expect(rules).toMatch(/^override_dh_python3:\n\tdh_python3 -p python3-ferry-agent$/m);
    expect(rules.match(/dist-packages\/ferry_agent\.py/g)).toHaveLength(1); // not in the package ferry any more
  });
});
