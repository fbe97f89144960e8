import { claimStore } from './claim-store.js';
import type { Claimed, StepEnd, StoreCopyEnd, StoreCopyEnvironment, StoreCopyPlan } from './store-copy-plan.js';
import { prepareCopyWriter, writeCopies } from './write-copies.js';

export type { StoreCopyEnd, StoreCopyEnvironment, StoreCopyPlan } from './store-copy-plan.js';

/**
 * Bring one image's stores from one source, in passes: each store is claimed (claim-store.ts: its lock, its names,
 * a found copy proven or refused); the claimed ones are written together (write-copies.ts: through librbd the source
 * is read and hashed once and every target written, issue 19 item 5), then each is proven from its stream, marked,
 * renamed (the commit; fails if the name exists) and its location PATCHed (commit-copy.ts). A store whose names
 * changed under it (a lost rename, a swapped copy) goes into the next pass; the deadline bounds them. Whatever fails
 * before the PATCH succeeded removes what this run wrote. Ends in the plans' order.
 */
export async function copyStores(env: StoreCopyEnvironment, plans: readonly StoreCopyPlan[]): Promise<(readonly [string, StoreCopyEnd])[]> {
  const ends = new Map<string, StoreCopyEnd>();
  for (let pending = plans; pending.length > 0;) {
    // The librbd process starts while the stores are claimed; discarded (a no-op once given the job) if none is.
    const prepared = prepareCopyWriter();
    try {
      const claims = await Promise.all(pending.map((plan) => claimStore(env, plan)));
      const claimed = claims.filter((claim): claim is Claimed => claim.kind === 'claimed');
      const written = claimed.length === 0 ? [] : await writeCopies(env, claimed, prepared);
      const again: StoreCopyPlan[] = [];
      pending.forEach((plan, index) => {
        const claim = claims[index] ?? unreachable(plan.store);
        const end: StepEnd = claim.kind === 'claimed' ? written[claimed.indexOf(claim)] ?? unreachable(plan.store) : claim;
        if (end.kind === 'look-again') again.push(plan);
        else ends.set(plan.store, end);
      });
      pending = again;
    } finally {
      await prepared?.discard();
    }
  }
  return plans.map((plan) => [plan.store, ends.get(plan.store) ?? unreachable(plan.store)] as const);
}

function unreachable(store: string): never {
  throw new Error(`rbd-copy-store: no end for store ${store}`);
}
