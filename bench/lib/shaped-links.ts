import { spawnSync } from 'node:child_process';

// Per-site WAN links on one machine (issue 37 part 4): an HTB qdisc on `lo` whose classes match only this dev cloud's
// Ceph OSD ports, a site's uplink by source port, its downlink by destination port. The dev cloud puts every cluster
// on 127.0.0.1 (scripts/devcloud/lib/common.sh: HOST), so ports, not addresses, tell the sites apart; traffic that no
// filter matches (other engineers' dev clouds, everything else on lo) is not classified and passes unshaped.
// The qdisc has its own handle (37:); it is removed by `unshapeLinks`, which the bench calls in `finally` and on
// signals; by hand: `tc qdisc del dev lo root handle 37:`.

const HANDLE = '37';

export interface ShapedLink {
  /** A name for the report (`site-c up`). */
  readonly name: string;
  readonly direction: 'up' | 'down';
  /** The OSD ports of the site's cluster. */
  readonly ports: readonly number[];
  readonly bytesPerSecond: number;
}

function tc(args: string[], mayFail = false): string {
  const run = spawnSync('tc', args, { encoding: 'utf8' });
  if (run.status !== 0 && !mayFail) throw new Error(`tc ${args.join(' ')}: ${run.stderr.trim()}`);
  return run.stdout;
}

/** Whether lo carries our qdisc now. */
export function linksShaped(): boolean {
  return tc(['qdisc', 'show', 'dev', 'lo']).includes(`htb ${HANDLE}: root`);
}

/** Installs the classes; refuses when lo has a root qdisc that is not the default (someone else's shaping). */
export function shapeLinks(links: readonly ShapedLink[]): void {
  const current = tc(['qdisc', 'show', 'dev', 'lo']);
  if (!/qdisc noqueue 0: root/.test(current) && !linksShaped()) throw new Error(`lo has a root qdisc already, not touching it: ${current.trim()}`);
  if (linksShaped()) unshapeLinks();
  tc(['qdisc', 'add', 'dev', 'lo', 'root', 'handle', `${HANDLE}:`, 'htb']);
  links.forEach((link, index) => {
    const classId = `${HANDLE}:${index + 10}`;
    const rate = `${Math.round((link.bytesPerSecond * 8) / 1000)}kbit`;
    // lo sends 64 KiB segments: a burst of a few of them keeps HTB from stalling on one.
    tc(['class', 'add', 'dev', 'lo', 'parent', `${HANDLE}:`, 'classid', classId, 'htb', 'rate', rate, 'ceil', rate, 'burst', '256k', 'cburst', '256k']);
    for (const port of link.ports) {
      tc(['filter', 'add', 'dev', 'lo', 'parent', `${HANDLE}:`, 'protocol', 'ip', 'prio', '1', 'u32',
        'match', 'ip', link.direction === 'up' ? 'sport' : 'dport', String(port), '0xffff', 'flowid', classId]);
    }
  });
}

/** Bytes each link has carried since shapeLinks, by its name. */
export function linkBytes(links: readonly ShapedLink[]): Record<string, number> {
  const out = tc(['-s', 'class', 'show', 'dev', 'lo']);
  const bytes: Record<string, number> = {};
  links.forEach((link, index) => {
    const match = new RegExp(`class htb ${HANDLE}:${index + 10} [^\\n]*\\n\\s*Sent (\\d+) bytes`).exec(out);
    bytes[link.name] = match ? Number(match[1]) : Number.NaN;
  });
  return bytes;
}

/** Removes our qdisc (only ours: by its handle); safe to call when it is not there. */
export function unshapeLinks(): void {
  if (linksShaped()) tc(['qdisc', 'del', 'dev', 'lo', 'root', 'handle', `${HANDLE}:`], true);
}
