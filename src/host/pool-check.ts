import type { CephCluster } from '../config/ceph-cluster.js';
import { cephCliFor } from '../rbd/ceph-cli.js';
import { classifyLocations, type ImageLocationsView } from '../rbd/classify-locations.js';
import type { LocalCluster } from '../rbd/location-verdict.js';
import { probeRbdPool, type PoolProbe } from '../rbd/probe-rbd-pool.js';
import type { HealthCheck } from './health-check.js';

/**
 * The `pool` check of `/healthz`: does the site's images pool answer a read? The fsid check reaches only the mons; an
 * OSD down (the pool's placement groups inactive) leaves it passing while every clone nova starts hangs. This one
 * reads the pool's RBD directory (`rbd ls`, as the agent's own read-only cephx user, which may read that pool and
 * nothing else) in the pool the agent last handed out a copy from, or, before its first hand-out, the pool its site's
 * copies are in as Glance lists them (`discover`): nova clones an image already at its site without asking the agent,
 * so a restarted agent may hand nothing out for many minutes (soak seed 37: 7 minutes, and an OSD stop in them paged
 * no one, the fleet rule seeing one agent of two).
 *
 * It runs beside the other checks, not inside them: a read that does not answer takes its own bound (`timeoutMs`,
 * shorter than `intervalMs`), longer than a health round may wait. Each health round reports the last finished read and
 * starts a new one when none runs and the last started `intervalMs` ago or more: at most one `rbd` at a time, and one
 * per interval however often /healthz is asked.
 */
export const POOL_CHECK_DEFAULTS = { intervalMs: 30_000, timeoutMs: 20_000 } as const;

/** Where the copies this agent hands out live: the local cluster and the pool of the last clone target. */
export interface PoolTarget {
  readonly cluster: CephCluster;
  readonly pool: string;
}

/** What the check knows at one health round. */
export interface PoolCheckState {
  readonly target: PoolTarget | undefined;
  /** The last finished read and what it read (a target of another pool or cluster does not count). */
  readonly last: { readonly probe: PoolProbe; readonly key: string } | undefined;
  readonly running: boolean;
  /** When the last read started (ms), undefined before the first. */
  readonly startedAt: number | undefined;
  readonly now: number;
  /** Whether a look for the pool in Glance's image list runs, and when the last one started (no target yet). */
  readonly discovering?: boolean;
  readonly discoveryStartedAt?: number | undefined;
}

export interface PoolCheckDecision {
  /** What this round reports; undefined: no check (no local cluster, or no copy handed out yet: the pool is unknown). */
  readonly check: HealthCheck | undefined;
  /** Whether to start a read now. */
  readonly start: boolean;
  /** Whether to look for the pool in Glance's image list now (no target yet: at most once per interval, one at a time). */
  readonly discover: boolean;
}

export function poolTargetKey(target: PoolTarget): string {
  return `${target.cluster.confFile}\0${target.cluster.user ?? ''}\0${target.pool}`;
}

/**
 * The check's verdict and whether to read again (pure). Failing only where Ceph says the pool does not answer
 * (`answers: false`: no answer in time, mons or OSDs); a read that could not tell (`null`: no keyring, no caps, no
 * `rbd`) passes, as it says nothing about the pool (the fsid check reports the keyring).
 */
export function decidePoolCheck(state: PoolCheckState, intervalMs: number = POOL_CHECK_DEFAULTS.intervalMs): PoolCheckDecision {
  if (state.target === undefined) {
    const discoveryDue = state.discoveryStartedAt === undefined || state.now - state.discoveryStartedAt >= intervalMs;
    return { check: undefined, start: false, discover: state.discovering !== true && discoveryDue };
  }
  const key = poolTargetKey(state.target);
  const due = state.startedAt === undefined || state.now - state.startedAt >= intervalMs;
  const start = !state.running && (due || state.last?.key !== key);
  const probe = state.last?.key === key ? state.last.probe : undefined;
  if (probe?.answers === false) {
    return { check: { ok: false, code: 'FERRY_CEPH', message: `pool ${state.target.pool} does not answer: ${probe.why}` }, start, discover: false };
  }
  return { check: { ok: true }, start, discover: false };
}

/**
 * The pool of this site's copies as Glance lists images (pure): the pool of the first clonable location in the local
 * cluster that carries our store's tag. undefined when the page shows none (a new site; locations hidden).
 */
export function poolOfLocalCopies(images: readonly ImageLocationsView[], local: LocalCluster & { readonly store: string }): string | undefined {
  for (const image of images) {
    const classified = classifyLocations(image, local);
    if (classified.kind === 'not-raw' || classified.kind === 'locations-hidden') continue;
    const ours = classified.verdicts.find((verdict) => verdict.verdict === 'clonable' && verdict.store === local.store);
    if (ours?.parsed !== undefined) return ours.parsed.pool;
  }
  return undefined;
}

export interface PoolCheck {
  /** Remember where a copy was handed out (its pool is the one read). */
  handedOut(target: PoolTarget): void;
  /** This round's verdict; starts a read when one is due. Never waits for the read. */
  check(): HealthCheck | undefined;
}

export function createPoolCheck(options: { readonly intervalMs?: number; readonly timeoutMs?: number; readonly now?: () => number;
  readonly read?: (target: PoolTarget, timeoutMs: number) => Promise<PoolProbe>;
  /** Where the site's copies are before any hand-out (Glance's image list); undefined: unknown yet. Errors count as that. */
  readonly discover?: (timeoutMs: number) => Promise<PoolTarget | undefined> } = {}): PoolCheck {
  const intervalMs = options.intervalMs ?? POOL_CHECK_DEFAULTS.intervalMs;
  const timeoutMs = options.timeoutMs ?? POOL_CHECK_DEFAULTS.timeoutMs;
  const now = options.now ?? Date.now;
  const read = options.read ?? ((target, bound) => probeRbdPool({ ...cephCliFor(target.cluster, { timeoutMs: bound }), pool: target.pool }));
  let target: PoolTarget | undefined;
  let last: PoolCheckState['last'];
  let running = false;
  let startedAt: number | undefined;
  let discovering = false;
  let discoveryStartedAt: number | undefined;
  const discover = options.discover;
  return {
    handedOut(next) {
      target = next;
    },
    check() {
      const decision = decidePoolCheck({ target, last, running, startedAt, now: now(), discovering, discoveryStartedAt }, intervalMs);
      if (decision.discover && discover !== undefined) {
        discovering = true;
        discoveryStartedAt = now();
        void discover(timeoutMs).catch(() => undefined)
          .then((found) => {
            // A hand-out meanwhile is fresher than the list.
            if (target === undefined && found !== undefined) target = found;
          })
          .finally(() => {
            discovering = false;
          });
      }
      if (decision.start && target !== undefined) {
        const reading = target;
        running = true;
        startedAt = now();
        // probeRbdPool throws only when aborted (it is not given a signal here): a throw is recorded as "could not tell".
        void read(reading, timeoutMs).catch((error: unknown): PoolProbe => ({ answers: null, why: `the read failed: ${String(error)}` }))
          .then((probe) => {
            last = { probe, key: poolTargetKey(reading) };
          })
          .finally(() => {
            running = false;
          });
      }
      return decision.check;
    },
  };
}
