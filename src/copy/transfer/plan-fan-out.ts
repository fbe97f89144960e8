// One image to many sites (issue 37 part 4, /work/shared/reference/fan-out.md): which site serves which in the next
// wave of a store-and-forward tree. Pure: the transfer (fan-out-transfer.ts) runs a wave, learns which hops gave a
// proven copy, and asks again; a failed hop's target simply stays wanted and its would-be children go to other
// holders, so nothing waits behind it.

/** How much each site's link may serve. */
export interface FanOutLimits {
  /** Hops one holder serves at once (its uplink shared by that many): the tree's fan-out. At least 1. */
  readonly perHolder: number;
  /**
   * Copies each origin (a site that held a proven copy before the run: the central site) serves in all. The central
   * link then carries the image at most this many times, unless no other holder is left to serve (see `overBudget`).
   */
  readonly originCopies: number;
  /** Per-site override of `perHolder` (a thin link: 1; a fat one: more). */
  readonly perSite?: ReadonlyMap<string, number>;
}

export const FAN_OUT_DEFAULTS = { perHolder: 2, originCopies: 2 } as const;

export interface FanOutState {
  /** The sites that held a proven copy when the run started, in preference order. */
  readonly origins: readonly string[];
  /** The sites holding a proven copy now (origins included), in the order they got it. */
  readonly holders: readonly string[];
  /** The sites still without a copy, in the order they should get one (a canary first). */
  readonly wanted: readonly string[];
  /** Copies each site has served so far in this run. */
  readonly served: ReadonlyMap<string, number>;
}

export interface FanOutHop { readonly from: string; readonly to: string }

export interface FanOutWave {
  readonly hops: readonly FanOutHop[];
  /** True when an origin serves past `originCopies` because no other holder is left (every forwarder failed). */
  readonly overBudget: boolean;
}

/**
 * The next wave: each holder takes the next wanted sites, up to its slots. Sites that got their copy in this run serve
 * first (newest last: every one of them is as good a source), then the origins, each within what is left of its
 * budget. When that gives no hop although sites are wanted and holders exist, the origins serve anyway (`overBudget`):
 * the budget bounds the central link, it never strands a site. No hops with sites wanted: no holder at all.
 */
export function planFanOutWave(state: FanOutState, limits: FanOutLimits): FanOutWave {
  const origins = new Set(state.origins);
  const forwarders = state.holders.filter((site) => !origins.has(site));
  const originHolders = state.holders.filter((site) => origins.has(site));
  const slotsOf = (site: string): number => Math.max(1, Math.floor(limits.perSite?.get(site) ?? limits.perHolder));
  const wanted = state.wanted.filter((site) => !state.holders.includes(site));
  const assign = (capacity: (site: string) => number): FanOutHop[] => {
    const hops: FanOutHop[] = [];
    for (const holder of [...forwarders, ...originHolders]) {
      hops.push(...wanted.slice(hops.length, hops.length + capacity(holder)).map((to) => ({ from: holder, to })));
    }
    return hops;
  };
  const withinBudget = assign((site) => (origins.has(site)
    ? Math.min(slotsOf(site), Math.max(0, limits.originCopies - (state.served.get(site) ?? 0)))
    : slotsOf(site)));
  if (withinBudget.length > 0 || wanted.length === 0) return { hops: withinBudget, overBudget: false };
  const anyway = assign(slotsOf);
  return { hops: anyway, overBudget: anyway.length > 0 };
}

/**
 * The whole tree if every hop succeeds: its waves in order (the Glance path's store list per import, the model's
 * depth). The run itself plans one wave at a time from what really happened.
 */
export function planFanOut(origins: readonly string[], wanted: readonly string[], limits: FanOutLimits): (readonly FanOutHop[])[] {
  const waves: (readonly FanOutHop[])[] = [];
  const holders = [...origins];
  const served = new Map<string, number>();
  let left = wanted.filter((site) => !origins.includes(site));
  while (left.length > 0) {
    const { hops } = planFanOutWave({ origins, holders, wanted: left, served }, limits);
    if (hops.length === 0) break;
    waves.push(hops);
    for (const hop of hops) {
      served.set(hop.from, (served.get(hop.from) ?? 0) + 1);
      holders.push(hop.to);
    }
    left = left.filter((site) => !hops.some((hop) => hop.to === site));
  }
  return waves;
}
