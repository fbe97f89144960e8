// docs/deploy/kolla.md section 4 gives the agent's container twice: as a systemd unit running podman, and as a
// quadlet (a podman whose quadlet knows StopTimeout=). They are one deployment: the same steps before the start (the run directories, then
// ferry-nova-conf-subset copying ferry's options out of kolla's nova.conf), the same ordering, and the same container.
// The quadlet lacked the subset step, so /run/ferry-agent/nova.conf was never written and the agent had no nova.conf.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Ini = Map<string, [string, string][]>;

/** The ```ini blocks of section 4, each parsed into sections of (key, value), continuation lines joined. */
function section4Blocks(): Ini[] {
  const page = readFileSync('docs/deploy/kolla.md', 'utf8');
  const section = page.slice(page.indexOf('## 4. '), page.indexOf('## 5. '));
  return [...section.matchAll(/```ini\n([\s\S]*?)```/g)].map((block) => {
    const ini: Ini = new Map();
    let current: [string, string][] = [];
    for (const line of (block[1] ?? '').replace(/\\\n\s*/g, ' ').split('\n')) {
      const header = /^\[(\w+)\]$/.exec(line);
      if (header) ini.set(header[1] ?? '', current = []);
      else if (/^\w+=/.test(line)) current.push([line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]);
    }
    return ini;
  });
}

const values = (ini: Ini, section: string, key: string): string[] => (ini.get(section) ?? []).filter(([k]) => k === key).map(([, v]) => v);

/** `podman run --rm [--name N] [--network X] [--group-add G] [-v V]… IMAGE ARGS…` as the quadlet's [Container] keys. */
function containerOf(podmanRun: string): Record<string, string[]> {
  const words = podmanRun.split(/\s+/).slice(2);
  const keys: Record<string, string[]> = { ContainerName: [], Network: [], GroupAdd: [], Volume: [], Image: [], Exec: [] };
  const flag: Record<string, string> = { '--name': 'ContainerName', '--network': 'Network', '--group-add': 'GroupAdd', '-v': 'Volume' };
  for (let at = 0; at < words.length; at += 1) {
    const word = words[at] ?? '';
    if (word === '--rm') continue;
    const key = flag[word];
    if (key !== undefined) { keys[key]?.push(words[at + 1] ?? ''); at += 1; continue; }
    keys.Image?.push(word);
    keys.Exec?.push(words.slice(at + 1).join(' '));
    break;
  }
  return keys;
}

describe('docs/deploy/kolla.md: the agent container\'s systemd unit and its quadlet agree', () => {
  const [unit, quadlet] = section4Blocks();

  it('section 4 has both: the unit (podman run) and the quadlet ([Container])', () => {
    expect(values(unit!, 'Service', 'ExecStart')[0]).toMatch(/^\/usr\/bin\/podman run /);
    expect(quadlet?.has('Container')).toBe(true);
  });

  it('the same ExecStartPre steps, in order: the run directories, then ferry-nova-conf-subset', () => {
    const steps = values(unit!, 'Service', 'ExecStartPre');
    expect(steps.some((step) => step.includes('/usr/lib/ferry/bin/ferry-nova-conf-subset /out/nova.conf'))).toBe(true);
    expect(values(quadlet!, 'Service', 'ExecStartPre')).toEqual(steps);
  });

  it.each([['Unit', 'Description'], ['Unit', 'Before'], ['Unit', 'After'], ['Unit', 'Wants'], ['Service', 'Restart'], ['Install', 'WantedBy']])('the same %s %s=', (section, key) => {
    expect(values(quadlet!, section, key)).toEqual(values(unit!, section, key));
  });

  it('the same drain before SIGKILL: the unit\'s `podman stop -t N` is the quadlet\'s StopTimeout=N, under its TimeoutStopSec', () => {
    const stop = /^\/usr\/bin\/podman stop -t (\d+) ferry-agent$/.exec(values(unit!, 'Service', 'ExecStop')[0] ?? '');
    expect(stop?.[1]).toBeDefined();
    expect(values(quadlet!, 'Container', 'StopTimeout')).toEqual([stop?.[1]]);
    // quadlet's manual: below the unit's own timeout, or systemd kills the `podman rm` that stops the container.
    expect(Number(values(quadlet!, 'Service', 'TimeoutStopSec')[0])).toBeGreaterThan(Number(stop?.[1]));
  });

  it('the same container: name, image, arguments, network, groups and volumes', () => {
    const run = containerOf(values(unit!, 'Service', 'ExecStart')[0] ?? '');
    for (const key of ['ContainerName', 'Image', 'Exec', 'Network', 'GroupAdd', 'Volume']) expect(values(quadlet!, 'Container', key), key).toEqual(run[key]);
  });
});
