import { describe, expect, it } from 'vitest';
import { planFanOut, planFanOutWave, type FanOutLimits, type FanOutState } from '../../../src/copy/transfer/plan-fan-out.js';

const limits = (perHolder: number, originCopies: number, perSite?: Record<string, number>): FanOutLimits => ({
  perHolder, originCopies, ...(perSite ? { perSite: new Map(Object.entries(perSite)) } : {}),
});
const state = (origins: string[], holders: string[], wanted: string[], served: Record<string, number> = {}): FanOutState => ({
  origins, holders, wanted, served: new Map(Object.entries(served)),
});
const hops = (text: string): { from: string; to: string }[] => (text === '' ? [] : text.split(' ').map((hop) => {
  const [from = '', to = ''] = hop.split('>');
  return { from, to };
}));

describe('planFanOutWave', () => {
  it.each([
    { name: 'the first wave: the origin serves its budget', s: state(['c'], ['c'], ['a', 'b', 'd']), l: limits(2, 2), want: 'c>a c>b', over: false },
    { name: 'fan-out 1: a chain of whole copies', s: state(['c'], ['c'], ['a', 'b']), l: limits(1, 2), want: 'c>a', over: false },
    { name: 'forwarders serve before the origin', s: state(['c'], ['c', 'a'], ['b', 'd'], { c: 1 }), l: limits(1, 2), want: 'a>b c>d', over: false },
    { name: 'the origin past its budget serves no more while forwarders can',
      s: state(['c'], ['c', 'a', 'b'], ['d', 'e', 'f', 'g', 'h'], { c: 2 }), l: limits(2, 2), want: 'a>d a>e b>f b>g', over: false },
    { name: 'a failed hop: its target is still wanted, others serve it', s: state(['c'], ['c', 'b'], ['a', 'd'], { c: 2 }), l: limits(2, 2),
      want: 'b>a b>d', over: false },
    { name: 'every forwarder failed: the origin serves past its budget rather than strand a site',
      s: state(['c'], ['c'], ['a', 'b'], { c: 2 }), l: limits(2, 2), want: 'c>a c>b', over: true },
    { name: 'a per-site limit: a thin link serves one at a time', s: state(['c'], ['c', 'a'], ['b', 'd', 'e'], { c: 2 }), l: limits(2, 2, { a: 1 }),
      want: 'a>b', over: false },
    { name: 'two origins: each has its own budget', s: state(['c', 'x'], ['c', 'x'], ['a', 'b', 'd', 'e', 'f']), l: limits(2, 1), want: 'c>a x>b', over: false },
    { name: 'nothing wanted', s: state(['c'], ['c', 'a'], []), l: limits(2, 2), want: '', over: false },
    { name: 'a wanted site that holds a copy already is not sent one', s: state(['c'], ['c', 'a'], ['a', 'b']), l: limits(2, 2), want: 'a>b', over: false },
    { name: 'no holder at all: no hop', s: state(['c'], [], ['a']), l: limits(2, 2), want: '', over: false },
  ])('$name', ({ s, l, want, over }) => {
    const wave = planFanOutWave(s, l);
    expect(wave.hops).toEqual(hops(want));
    expect(wave.overBudget).toBe(over);
  });
});

describe('planFanOut', () => {
  const sites = (n: number): string[] => Array.from({ length: n }, (_, i) => `s${i + 1}`);
  it.each([
    { n: 1, perHolder: 2, originCopies: 2, waves: 1 },
    { n: 2, perHolder: 1, originCopies: 2, waves: 2 },
    { n: 2, perHolder: 2, originCopies: 2, waves: 1 },
    { n: 6, perHolder: 2, originCopies: 2, waves: 2 },
    // 2, then 4 (the origin is spent), 12, then the last 22: each forwarder serves 2 a wave, the holders triple.
    { n: 40, perHolder: 2, originCopies: 2, waves: 4 },
    // A chain at first, then doubling: 1, 2, 4, 8, 16, 32, 40.
    { n: 40, perHolder: 1, originCopies: 1, waves: 7 },
    { n: 40, perHolder: 40, originCopies: 40, waves: 1 },
  ])('$n sites, fan-out $perHolder, origin budget $originCopies: $waves waves', ({ n, perHolder, originCopies, waves }) => {
    const plan = planFanOut(['c'], sites(n), limits(perHolder, originCopies));
    expect(plan).toHaveLength(waves);
    const all = plan.flat();
    expect(all.map((hop) => hop.to).sort()).toEqual(sites(n).sort());
    expect(all.filter((hop) => hop.from === 'c').length).toBeLessThanOrEqual(originCopies);
    // A hop's source holds a copy by the wave it serves in.
    const holders = new Set(['c']);
    for (const wave of plan) {
      for (const hop of wave) expect(holders.has(hop.from)).toBe(true);
      for (const hop of wave) holders.add(hop.to);
    }
  });
});
