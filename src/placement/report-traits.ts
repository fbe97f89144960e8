import { FerryError } from '../errors/ferry-error.js';
import { planTraitSync, unknownTraitsError } from '../traits/plan-trait-sync.js';
import type { TraitSyncPlan } from '../traits/plan-trait-sync.js';
import type { TraitCatalogue } from '../traits/trait-catalogue.js';
import { assertTraitFamilies, inTraitFamilies } from '../traits/trait-families.js';
import type { PlacementClient } from './placement-client.js';
import { knownTraits } from './read-trait-catalogue.js';
import { resolveProvider } from './resolve-provider.js';

/** What to report: a host's traits and the families they decide (HostTraitReport has both). */
export interface DesiredTraits {
  readonly traits: readonly string[];
  /** Prefixes ending in `_` or exact names; only traits of these are added or removed. */
  readonly decidedFamilies: readonly string[];
}

export interface ReportTraitsOptions {
  /**
   * The names the target Placement knows. Absent: ferry asks Placement about the names it is about to send
   * (`GET /traits?name=in:…`). Given (say, from readTraitCatalogue): trusted, no extra request.
   */
  readonly catalogue?: TraitCatalogue;
  /** Re-reads after a generation conflict before giving up with FERRY_PLACEMENT_CONFLICT; default 4. */
  readonly maxConflictRetries?: number;
  /** Plan only: read the provider, never write. */
  readonly dryRun?: boolean;
  readonly signal?: AbortSignal;
}

export const REPORT_TRAITS_DEFAULTS = { maxConflictRetries: 4, dryRun: false } as const;

/** What a report did to one provider. */
export interface TraitReportResult {
  readonly provider: { readonly uuid: string; readonly name: string };
  /** Names ferry added (or, with dryRun, would add). Sorted. */
  readonly added: readonly string[];
  /** Names of ferry's decided families it removed (or would remove). */
  readonly removed: readonly string[];
  /** Names that stay: every name outside ferry's families (CUSTOM_*, COMPUTE_STATUS_DISABLED, …) and owned ones still true. */
  readonly kept: readonly string[];
  /** True when the provider already had what ferry reports: no write was made. */
  readonly unchanged: boolean;
  /** Read-plan-write rounds: 1, plus one per generation conflict. */
  readonly attempts: number;
  readonly dryRun: boolean;
  /** The provider's traits afterwards (with dryRun: as they would be). Sorted. */
  readonly traits: readonly string[];
  /** The provider generation afterwards (with dryRun or unchanged: as read). */
  readonly generation: number;
}

/**
 * Make a provider's traits match `desired`, touching only the decided families: resolve the provider (UUID or name),
 * refuse unknown names before any write (FERRY_UNKNOWN_TRAIT), then read traits + generation, plan (planTraitSync)
 * and write with that generation. A generation conflict (someone else changed the provider in between) re-reads and
 * re-plans, so their change survives; after `maxConflictRetries` re-reads, FERRY_PLACEMENT_CONFLICT. Nothing is
 * written when nothing changes, so a second run costs reads only.
 */
export async function reportTraits(
  placement: PlacementClient,
  providerRef: string,
  desired: DesiredTraits,
  options: ReportTraitsOptions = {},
): Promise<TraitReportResult> {
  const maxConflictRetries = options.maxConflictRetries ?? REPORT_TRAITS_DEFAULTS.maxConflictRetries;
  if (!Number.isInteger(maxConflictRetries) || maxConflictRetries < 0) {
    throw new FerryError('FERRY_INVALID_OPTION', `maxConflictRetries must be an integer ≥ 0, got ${String(maxConflictRetries)}`,
      'Leave it out for the default (4).', { option: 'maxConflictRetries', value: maxConflictRetries });
  }
  assertTraitFamilies(desired.decidedFamilies);
  const dryRun = options.dryRun ?? REPORT_TRAITS_DEFAULTS.dryRun;
  const call = { signal: options.signal };

  const provider = await resolveProvider(placement, providerRef, call);
  const owned = desired.traits.filter((name) => !name.startsWith('CUSTOM_') && inTraitFamilies(name, desired.decidedFamilies));
  const catalogue = options.catalogue ?? await knownTraits(placement, owned, call);
  const plan = (current: readonly string[]): TraitSyncPlan => {
    const planned = planTraitSync(current, desired.traits, desired.decidedFamilies, catalogue);
    if (planned.unknown.length > 0) throw unknownTraitsError(planned.unknown, catalogue);
    return planned;
  };
  // Checked once before the first read: the desired names do not change between rounds.
  plan([]);

  for (let attempt = 1; ; attempt += 1) {
    const current = await placement.getProviderTraits(provider.uuid, call);
    const planned = plan(current.traits);
    const result = (traits: readonly string[], generation: number): TraitReportResult => Object.freeze({
      provider: Object.freeze({ uuid: provider.uuid, name: provider.name }),
      added: planned.add, removed: planned.remove, kept: planned.keep,
      unchanged: !planned.changed, attempts: attempt, dryRun, traits, generation,
    });
    if (!planned.changed) return result(current.traits, current.generation);
    if (dryRun) return result(planned.final, current.generation);
    const written = await placement.setProviderTraits(provider.uuid, current.generation, planned.final, call);
    if (written.kind === 'updated') return result(written.traits, written.generation);
    if (attempt > maxConflictRetries) {
      throw new FerryError('FERRY_PLACEMENT_CONFLICT',
        `Placement reported a generation conflict on provider ${provider.name} (${provider.uuid}) ${attempt} times in a row: ` +
          'something else keeps changing it between ferry\'s read and write',
        'Run the command again. If it keeps failing, find the other writer (nova-compute\'s periodic update, another ferry, ' +
          'an operator script) or raise maxConflictRetries.',
        { provider: provider.uuid, attempts: attempt, lastMessage: written.message, requestId: written.requestId });
    }
  }
}
