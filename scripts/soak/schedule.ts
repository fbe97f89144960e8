// The soak's schedule: a seed and a length → every timed event of the run, and each node's boots. Pure: the same seed
// gives the same schedule, so a failing run is replayed by its seed (`npm run soak -- --minutes N --seed S`).
import { seededRandom } from '../../bench/lib/simulate-ensure-wait.js';

/** A fault or a day-two job, at a second of the run. */
export type SoakEvent =
  | { readonly at: number; readonly kind: 'glance-outage'; readonly seconds: number }
  | { readonly at: number; readonly kind: 'osd-stop'; readonly site: Site; readonly seconds: number }
  | { readonly at: number; readonly kind: 'mon-restart'; readonly site: Site }
  | { readonly at: number; readonly kind: 'token-expiry'; readonly tenant: Tenant }
  | { readonly at: number; readonly kind: 'answers-lost'; readonly seconds: number }
  | { readonly at: number; readonly kind: 'agent-restart'; readonly node: number }
  | { readonly at: number; readonly kind: 'upload'; readonly image: UploadKind }
  | { readonly at: number; readonly kind: 'prewarm' }
  /**
   * A neighbour plants an RBD image where a copy would go; `removeAfter` s later the soak, as the operator following
   * docs/runbooks.md (FerryCopiesFailing → exit-codes.md 33: check nothing was cloned from it, `rbd rm`), removes it.
   */
  | { readonly at: number; readonly kind: 'forged-copy'; readonly site: Site; readonly removeAfter: number }
  | { readonly at: number; readonly kind: 'tenant-delete' }
  | { readonly at: number; readonly kind: 'evict'; readonly site: Site }
  | { readonly at: number; readonly kind: 'package-upgrade'; readonly node: number; readonly seconds: number };

export type SoakEventKind = SoakEvent['kind'];
export type Site = 'site-a' | 'site-b';
export type Tenant = 'tenant-a' | 'tenant-b';
/** What a node boots: the kinds of image a tenant may boot (tenant-boot.test.ts), and the newest upload. */
export type ImageKind = 'public' | 'private' | 'shared' | 'snapshot' | 'community' | 'new';
export type UploadKind = 'public' | 'private';

export const SITES: readonly Site[] = ['site-a', 'site-b'];
export const IMAGE_KINDS: readonly ImageKind[] = ['public', 'private', 'shared', 'snapshot', 'community', 'new'];

/** The faults that stop a service of the cloud: one at a time (their alerts are told apart by when they happen). */
export const OUTAGES: readonly SoakEventKind[] = ['glance-outage', 'osd-stop', 'mon-restart'];
/** Every fault kind the schedule draws from, outages first in a cycle so that a short run still gets each. */
export const FAULT_KINDS: readonly SoakEventKind[] = ['glance-outage', 'agent-restart', 'osd-stop', 'token-expiry', 'forged-copy',
  'tenant-delete', 'mon-restart', 'answers-lost'];
/**
 * The packaged node's upgrade (`apt-get install ./newer.deb` under load, scripts/soak/package-node.ts): in the cycle
 * only when the run has a packaged node, so that the schedules of runs without one stay those of before.
 */
export const PACKAGE_UPGRADE = 'package-upgrade' satisfies SoakEventKind;
/** Every fault kind a run may inject (what is a fault, not a job, in the history and the report). */
export const ALL_FAULT_KINDS: readonly SoakEventKind[] = [...FAULT_KINDS, PACKAGE_UPGRADE];
/** The upgrade's slot (s): apt-get install under load took 30-90 s here; no other fault starts meanwhile. */
const UPGRADE_SLOT_S = 120;

export interface NodeBoot {
  /** Which kind of image the boot takes. */
  readonly kind: ImageKind;
  /** How long the instance lives before it is deleted (s). */
  readonly lifeSeconds: number;
  /** The pause before the node's next boot (s). */
  readonly gapSeconds: number;
}

export interface Schedule {
  readonly seed: number;
  readonly seconds: number;
  /** Boots and jobs only before this second: faults end before the cool-down, so that alerts can clear. */
  readonly warmUpSeconds: number;
  readonly coolDownAt: number;
  readonly events: readonly SoakEvent[];
  /** Per node, its boots in order (a node boots the next when the previous clone returned and its gap passed). */
  readonly boots: readonly (readonly NodeBoot[])[];
}

export interface ScheduleOptions {
  readonly seed: number;
  readonly minutes: number;
  readonly nodes: number;
  /** A node's mean pause between boots (s); the "one boot per node every few seconds". */
  readonly meanGapSeconds?: number;
  /**
   * How long an outage lasts (s). The shipped alerts wait `for: 5m`: an outage the alerts must see lasts longer.
   * Default: 6 min from a 30-minute run on, else a fifth of the fault window.
   */
  readonly outageSeconds?: number;
  /** The node whose agent is the Debian package's (scripts/soak/package-node.ts): upgraded once per cycle. */
  readonly packagedNode?: number;
}

const pick = <T>(rng: () => number, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
const between = (rng: () => number, low: number, high: number): number => Math.round(low + rng() * (high - low));

/** A seeded shuffle (Fisher-Yates). */
function shuffled<T>(rng: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * The schedule of a run. Warm-up: the first fifth (at most 2 min), boots only (the agents' RSS is read after it).
 * Cool-down: the last fifth (at most 8 min), jobs and boots only, so that every alert can clear and the budgets be met.
 * Between them, faults one after another in slots, each kind once per cycle (a seeded order), outages never overlapping;
 * uploads, prewarms and evictions throughout.
 */
export function soakSchedule(options: ScheduleOptions): Schedule {
  if (!Number.isInteger(options.seed) || options.seed < 0) throw new Error(`seed must be a whole number ≥ 0, got ${options.seed}`);
  if (!(options.minutes > 0)) throw new Error(`minutes must be more than 0, got ${options.minutes}`);
  const packaged = options.packagedNode;
  if (packaged !== undefined && !(Number.isInteger(packaged) && packaged >= 0 && packaged < options.nodes)) {
    throw new Error(`packagedNode must be one of the ${options.nodes} nodes (0-${options.nodes - 1}), got ${packaged}`);
  }
  const kinds = packaged === undefined ? FAULT_KINDS : ALL_FAULT_KINDS;
  const rng = seededRandom(options.seed);
  const seconds = Math.round(options.minutes * 60);
  const warmUpSeconds = Math.min(120, Math.round(seconds / 5));
  const coolDownAt = seconds - Math.min(480, Math.round(seconds / 5));
  const window = coolDownAt - warmUpSeconds;
  const outageSeconds = options.outageSeconds ?? (seconds >= 1800 ? 360 : Math.max(10, Math.round(window / 5)));
  const events: SoakEvent[] = [];

  // Faults: slots of the fault window, each long enough for its fault and the recovery after it.
  let at = warmUpSeconds;
  let cycle: SoakEventKind[] = [];
  while (at < coolDownAt) {
    if (cycle.length === 0) cycle = shuffled(rng, kinds);
    const kind = cycle.shift()!;
    const outage = OUTAGES.includes(kind);
    const upgrade = kind === PACKAGE_UPGRADE;
    const length = outage ? outageSeconds : upgrade ? UPGRADE_SLOT_S : Math.max(10, Math.round(window / 24));
    if (at + length > coolDownAt) {
      if (outage || upgrade) continue; // a shorter fault may still fit
      break;
    }
    const event: SoakEvent = upgrade ? { at, kind: PACKAGE_UPGRADE, node: packaged!, seconds: length } : faultEvent(kind, at, length, rng, options.nodes);
    events.push(event.kind === 'forged-copy' ? { ...event, removeAfter: removalDelay(options.seed, at, coolDownAt, seconds) } : event);
    at += length + between(rng, 5, Math.max(5, Math.round(window / 60)));
  }

  // Jobs throughout, also in the cool-down: new uploads (each prewarmed soon after, or not), evictions of each site.
  const jobGap = Math.max(20, Math.round(seconds / 10));
  for (let t = Math.round(jobGap / 2); t < seconds - 10; t += jobGap) {
    const image = pick(rng, ['public', 'private'] as const);
    events.push({ at: t, kind: 'upload', image });
    if (rng() < 0.5) events.push({ at: t + 2, kind: 'prewarm' });
    events.push({ at: t + between(rng, 3, Math.round(jobGap / 2)), kind: 'evict', site: pick(rng, SITES) });
  }
  events.sort((a, b) => a.at - b.at);

  const meanGap = options.meanGapSeconds ?? 4;
  const boots = Array.from({ length: options.nodes }, () => {
    const plan: NodeBoot[] = [];
    // Enough boots for a node that clones instantly every time; the run ends at its length whatever is left.
    for (let n = 0; n < Math.ceil(seconds / Math.max(1, meanGap / 2)) + 1; n += 1) {
      plan.push({ kind: pick(rng, IMAGE_KINDS), lifeSeconds: between(rng, 5, 30), gapSeconds: Math.round(rng() * 2 * meanGap * 10) / 10 });
    }
    return plan;
  });
  return { seed: options.seed, seconds, warmUpSeconds, coolDownAt, events, boots };
}

function faultEvent(kind: SoakEventKind, at: number, length: number, rng: () => number, nodes: number): SoakEvent {
  switch (kind) {
    case 'glance-outage': return { at, kind, seconds: length };
    case 'osd-stop': return { at, kind, site: pick(rng, SITES), seconds: length };
    case 'mon-restart': return { at, kind, site: pick(rng, SITES) };
    case 'token-expiry': return { at, kind, tenant: pick(rng, ['tenant-a', 'tenant-b'] as const) };
    case 'answers-lost': return { at, kind, seconds: length };
    case 'agent-restart': return { at, kind, node: Math.floor(rng() * nodes) };
    case 'forged-copy': return { at, kind, site: pick(rng, SITES), removeAfter: 0 };
    case 'tenant-delete': return { at, kind };
    case 'upload': return { at, kind, image: 'public' };
    case 'prewarm': return { at, kind };
    case 'evict': return { at, kind, site: pick(rng, SITES) };
    case 'package-upgrade': return { at, kind, node: nodes - 1, seconds: length };
  }
}

/**
 * When the operator removes a planted copy: 2-5 min after it was planted (an operator answering the warning), never
 * after the cool-down starts nor later than REMOVED_BEFORE_END_S before the end (so that the warning can clear; a
 * copy planted later is removed 1 s after). Drawn from a generator of its own,
 * seeded by the seed and the second, so that adding it moved no other event of a seed's schedule.
 */
export function removalDelay(seed: number, at: number, coolDownAt: number, seconds: number): number {
  const wanted = between(seededRandom(seed * 100_003 + at), 120, 300);
  const latest = Math.min(coolDownAt, seconds - REMOVED_BEFORE_END_S);
  return Math.max(1, Math.min(wanted, latest - at));
}

/**
 * A planted copy is removed this long before the run's end at the latest: FerryCopiesFailing counts failures over
 * 10 minutes (`increase(...[10m])`), so it clears 10 min after the last one; 13 min leaves the scrapes of the end.
 */
export const REMOVED_BEFORE_END_S = 780;

/** Faults injected by kind (the report's table). */
export function countByKind(events: readonly { readonly kind: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of events) counts[event.kind] = (counts[event.kind] ?? 0) + 1;
  return counts;
}
