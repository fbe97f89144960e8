import type { CephCluster } from '../config/ceph-cluster.js';
import { cephCliFor } from '../rbd/ceph-cli.js';
import { probeRbdPool, type PoolProbe } from '../rbd/probe-rbd-pool.js';
import type { HealthCheck } from './health-check.js';

/**
 * The `pool` check of `/healthz`: does the site's images pool answer a read? The fsid check reaches only the mons; an
 * OSD down (the pool's placement groups inactive) leaves it passing while every clone nova starts hangs. This one
 * reads the pool's RBD directory (`rbd ls`, as the agent's own read-only cephx user, which may read that pool and
 * nothing else) in the pool the agent last handed out a copy from.
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
}

export interface PoolCheckDecision {
  /** What this round reports; undefined: no check (no local cluster, or no copy handed out yet: the pool is unknown). */
  readonly check: HealthCheck | undefined;
  /** Whether to start a read now. */
  readonly start: boolean;
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
  if (state.target === undefined) return { check: undefined, start: false };
  const key = poolTargetKey(state.target);
  const due = state.startedAt === undefined || state.now - state.startedAt >= intervalMs;
  const start = !state.running && (due || state.last?.key !== key);
  const probe = state.last?.key === key ? state.last.probe : undefined;
  if (probe?.answers === false) {
    return { check: { ok: false, code: 'FERRY_CEPH', message: `pool ${state.target.pool} does not answer: ${probe.why}` }, start };
  }
  return { check: { ok: true }, start };
}

export interface PoolCheck {
  /** Remember where a copy was handed out (its pool is the one read). */
  handedOut(target: PoolTarget): void;
  /** This round's verdict; starts a read when one is due. Never waits for the read. */
  check(): HealthCheck | undefined;
}

export function createPoolCheck(options: { readonly intervalMs?: number; readonly timeoutMs?: number; readonly now?: () => number;
  readonly read?: (target: PoolTarget, timeoutMs: number) => Promise<PoolProbe> } = {}): PoolCheck {
  const intervalMs = options.intervalMs ?? POOL_CHECK_DEFAULTS.intervalMs;
  const timeoutMs = options.timeoutMs ?? POOL_CHECK_DEFAULTS.timeoutMs;
  const now = options.now ?? Date.now;
  const read = options.read ?? ((target, bound) => probeRbdPool({ ...cephCliFor(target.cluster, { timeoutMs: bound }), pool: target.pool }));
  let target: PoolTarget | undefined;
  let last: PoolCheckState['last'];
  let running = false;
  let startedAt: number | undefined;
  return {
    handedOut(next) {
      target = next;
    },
    check() {
      const decision = decidePoolCheck({ target, last, running, startedAt, now: now() }, intervalMs);
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
