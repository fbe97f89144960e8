import type { FanOutHop } from '../../src/copy/transfer/plan-fan-out.js';

// The fan-out model (docs/deploy/fan-out.md): how long a plan of waves takes over given links, and what each link
// carries. Pure; checked against the three-site measurement (bench/fan-out.ts), then used for 40 sites.

/** A site's WAN link in bytes per second, each direction on its own (full duplex). */
export interface SiteLink { readonly upBps: number; readonly downBps: number }

export interface FanOutModelInput {
  readonly waves: readonly (readonly FanOutHop[])[];
  readonly bytes: number;
  readonly links: (site: string) => SiteLink;
  /** A hop's fixed cost besides the bytes (claim, create, verify, rename, register), seconds. */
  readonly hopOverheadS: number;
  /** The run's own cost before the first hop (process start, token, plan reads), seconds; default 0. */
  readonly startS?: number;
}

export interface FanOutModelResult {
  /** Seconds from the start until each site holds a proven copy. */
  readonly readyS: ReadonlyMap<string, number>;
  readonly lastS: number;
  /** How many times each site's uplink carries the image. */
  readonly uplinkCopies: ReadonlyMap<string, number>;
}

/**
 * Waves run one after another (the next starts when the last hop of this one is registered). Within a wave, hops
 * that leave one site share its uplink and hops that enter one site share its downlink, equally; a hop moves at the
 * slower of its two shares and then pays the fixed overhead.
 */
export function modelFanOut(input: FanOutModelInput): FanOutModelResult {
  const readyS = new Map<string, number>();
  const uplinkCopies = new Map<string, number>();
  let waveStartS = input.startS ?? 0;
  for (const wave of input.waves) {
    const leaving = countBy(wave.map((hop) => hop.from));
    const entering = countBy(wave.map((hop) => hop.to));
    let waveEndS = waveStartS;
    for (const hop of wave) {
      const rate = Math.min(input.links(hop.from).upBps / (leaving.get(hop.from) ?? 1), input.links(hop.to).downBps / (entering.get(hop.to) ?? 1));
      const doneS = waveStartS + input.bytes / rate + input.hopOverheadS;
      readyS.set(hop.to, doneS);
      uplinkCopies.set(hop.from, (uplinkCopies.get(hop.from) ?? 0) + 1);
      waveEndS = Math.max(waveEndS, doneS);
    }
    waveStartS = waveEndS;
  }
  return { readyS, lastS: waveStartS, uplinkCopies };
}

/**
 * Not built (the gap, docs/deploy/fan-out.md): a pipelined chain, each site forwarding pieces as they arrive and
 * verifying the whole before it registers. The last of `sites` is ready after the first hop's bytes plus one piece per
 * further hop and each site's overhead (they overlap but for the last).
 */
export function modelPipelinedChain(sites: number, bytes: number, link: SiteLink, pieceBytes: number, hopOverheadS: number): number {
  const rate = Math.min(link.upBps, link.downBps);
  return bytes / rate + Math.max(0, sites - 1) * (pieceBytes / rate) + hopOverheadS;
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}
