import { isFerryError, type FerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import { withPin } from '../fleet/copy-facts.js';
import { NO_PINS } from '../fleet/copy-pins.js';
import { ownersOf } from '../fleet/project-owners.js';
import { budgetBytes } from '../fleet/store-budget.js';
import { EVICT_DEFAULTS } from '../fleet/evict-defaults.js';
import type { EvictionPlan } from '../fleet/eviction-plan.js';
import type { FleetPlanners } from '../fleet/fleet-verb.js';
import type { PrewarmPlan } from '../fleet/prewarm-plan.js';
import { fleetUsageOf, type StoreUsage } from '../fleet/store-usage.js';
import type { StoreCatalogue } from '../fleet/store-catalogue.js';
import type { PoolListing } from '../rbd/store-copy-listing.js';
import { policyWants, unresolvedPolicyRefs, type PolicyWants } from '../fleet/policy-wants.js';
import type { SyncPolicy } from '../fleet/sync-policy.js';
import { usageRuleWants } from '../fleet/usage-rule-wants.js';

export interface FleetInput {
  readonly policy: SyncPolicy;
  /** Every image, from one listing (GET /v2/images?visibility=all, page by page). */
  readonly images: readonly GlanceImage[];
  readonly catalogue: StoreCatalogue;
  /** The pools read, by store: the stores of `stores:` that name their cluster. */
  readonly pools: ReadonlyMap<string, PoolListing>;
  readonly wallNowMs: number;
  readonly run: string;
  readonly anyFormat?: boolean;
  /**
   * The project of the token that read `images` (Session.projectId): names resolve as Glance's default listing shows them
   * to it, and its images' own pins count unless the policy names its pin_owners.
   */
  readonly viewerProject?: string | undefined;
}

export interface StoreEvictionPlan {
  readonly store: string;
  readonly usage: StoreUsage;
  /** undefined when the budget could not be turned into bytes (`budgetError`). */
  readonly plan: EvictionPlan | undefined;
  readonly budgetError: FerryError | undefined;
}

export interface FleetPlan {
  /** Store → image → the placements and usage rules that want it there. */
  readonly wants: PolicyWants;
  /** What to copy: every wanted (image, store) not in place. */
  readonly copy: PrewarmPlan;
  /** Per store with a budget and a pool read: what to evict to meet it (never what is wanted there). */
  readonly evictions: readonly StoreEvictionPlan[];
  /** The stores whose pool was read, with their copies' facts. */
  readonly usage: ReadonlyMap<string, StoreUsage>;
}

/**
 * Pure: the whole fleet's sync plan from one image listing and one listing per pool. What the placements and usage
 * rules want, where, is copied (the prewarm verb's plan); in each store over its budget, what is not wanted goes least
 * recently used first (the evict verb's plan, the wanted copies pinned, only the remove owners' images). The cost grows with the images plus the pools' entries:
 * every join is by id, never a scan of one list per element of another.
 */
export function planFleet(input: FleetInput, verbs: FleetPlanners): FleetPlan {
  const { policy, images } = input;
  const placementWants = policyWants(policy, images, input.viewerProject);
  const owners = ownersOf(policy.pinOwners, input.viewerProject);
  const removeOwners = ownersOf(policy.removeOwners, input.viewerProject);
  const usage = fleetUsageOf(images, input.pools, (store) => ({ refs: NO_PINS.refs, wanted: placementWants.get(store) ?? NO_PINS.wanted, owners }));
  // A usage rule counts its owners' images (`owners:`), else the pin owners': keeping a copy by use is a pin by use.
  const ruleWants = usageRuleWants(policy.usage, [...usage.values()].map((entry) => entry.copies), input.wallNowMs,
    (rule) => (rule.owners === undefined ? owners : ownersOf(rule.owners, input.viewerProject)));
  const wants = mergeWants(placementWants, ruleWants);

  const byId = new Map(images.map((image) => [image.id, image]));
  const targets = new Map<string, { image: GlanceImage; stores: string[] }>();
  // forEach, not for-of with [key, value]: an entry array per wanted pair (23 800 at fleet scale) otherwise.
  wants.forEach((inStore, store) => inStore.forEach((_reasons, id) => {
    const image = byId.get(id);
    if (image === undefined) return;
    const target = targets.get(id) ?? { image, stores: [] };
    target.stores.push(store);
    targets.set(id, target);
  }));
  const copy = verbs.prewarm.plan({ targets: [...targets.values()], unresolved: unresolvedPolicyRefs(policy, images, input.viewerProject), catalogue: input.catalogue },
    { anyFormat: input.anyFormat === true });

  const removedElsewhere = new Map<string, number>();
  const evictions: StoreEvictionPlan[] = [];
  for (const [store, storeUsage] of usage) {
    const settings = policy.stores.get(store);
    if (settings?.budget === undefined) continue;
    const wanted = ruleWants.get(store);
    const copies = wanted === undefined ? storeUsage.copies : storeUsage.copies.map((copy) => (copy.pin === undefined && wanted.has(copy.imageId)
      ? withPin(copy, `kept by the usage rule ${wanted.get(copy.imageId)?.join(', ') ?? ''}`) : copy));
    let bytes: number;
    try {
      bytes = budgetBytes(settings.budget, storeUsage.capacity, store);
    } catch (error) {
      if (!isFerryError(error)) throw error;
      evictions.push(Object.freeze({ store, usage: storeUsage, plan: undefined, budgetError: error }));
      continue;
    }
    const plan = verbs.evict.plan({ store, copies, poolBytes: storeUsage.poolBytes, budgetBytes: bytes, idleMs: settings.idleMs ?? EVICT_DEFAULTS.idleMs,
      wallNowMs: input.wallNowMs, run: input.run, removedElsewhere, removeOwners });
    // The copies to evict come first in a plan: counted until the first one kept.
    for (const entry of plan.copies) {
      if (entry.action !== 'evict') break;
      removedElsewhere.set(entry.copy.imageId, (removedElsewhere.get(entry.copy.imageId) ?? 0) + 1);
    }
    evictions.push(Object.freeze({ store, usage: Object.freeze({ ...storeUsage, copies }), plan, budgetError: undefined }));
  }
  return Object.freeze({ wants, copy, evictions: Object.freeze(evictions), usage });
}

function mergeWants(placements: PolicyWants, rules: PolicyWants): PolicyWants {
  // The placements' maps as they are where no usage rule adds to a store (most stores, at fleet scale): a copy per
  // store of every wanted image's reasons was a sixth of the plan's memory.
  const merged = new Map<string, ReadonlyMap<string, readonly string[]>>(placements);
  rules.forEach((inStore, store) => {
    const target = new Map<string, readonly string[]>(placements.get(store) ?? []);
    inStore.forEach((reasons, id) => {
      const known = target.get(id);
      target.set(id, known === undefined ? reasons : [...known, ...reasons]);
    });
    merged.set(store, target);
  });
  return merged;
}
