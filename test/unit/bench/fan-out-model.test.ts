import { describe, expect, it } from 'vitest';
import { modelFanOut, modelPipelinedChain } from '../../../bench/lib/fan-out-model.js';
import { planFanOut } from '../../../src/copy/transfer/plan-fan-out.js';

const MB = 1_000_000;
const even = (rate: number) => () => ({ upBps: rate, downBps: rate });
const hops = (text: string) => text.split(' ').map((hop) => {
  const [from = '', to = ''] = hop.split('>');
  return { from, to };
});

describe('modelFanOut', () => {
  it.each([
    { name: 'one hop: the bytes at the link rate, plus the overhead', waves: [hops('c>a')], lastS: 12, ready: { a: 12 }, up: { c: 1 } },
    { name: 'a star of two: the origin uplink shared', waves: [hops('c>a c>b')], lastS: 22, ready: { a: 22, b: 22 }, up: { c: 2 } },
    { name: 'a chain of two: one after the other', waves: [hops('c>a'), hops('a>b')], lastS: 24, ready: { a: 12, b: 24 }, up: { c: 1, a: 1 } },
    { name: 'two hops into one site share its downlink', waves: [hops('c>a x>a')], lastS: 22, ready: { a: 22 }, up: { c: 1, x: 1 } },
  ])('$name', ({ waves, lastS, ready, up }) => {
    const result = modelFanOut({ waves, bytes: 100 * MB, links: even(10 * MB), hopOverheadS: 2 });
    expect(result.lastS).toBeCloseTo(lastS);
    expect(Object.fromEntries(result.readyS)).toEqual(ready);
    expect(Object.fromEntries(result.uplinkCopies)).toEqual(up);
  });

  it('the run starts once: every wave after it', () => {
    const result = modelFanOut({ waves: [hops('c>a'), hops('a>b')], bytes: 100 * MB, links: even(10 * MB), hopOverheadS: 2, startS: 5 });
    expect(Object.fromEntries(result.readyS)).toEqual({ a: 17, b: 29 });
  });

  it('a thin uplink at the origin slows only the hops that leave it', () => {
    const links = (site: string) => (site === 'c' ? { upBps: 5 * MB, downBps: 10 * MB } : { upBps: 10 * MB, downBps: 10 * MB });
    const result = modelFanOut({ waves: [hops('c>a'), hops('a>b')], bytes: 100 * MB, links, hopOverheadS: 0 });
    expect(Object.fromEntries(result.readyS)).toEqual({ a: 20, b: 30 });
  });

  it('40 sites from the planner at fan-out 2: 4 waves, the origin uplink carries it twice', () => {
    const waves = planFanOut(['c'], Array.from({ length: 40 }, (_, i) => `s${i}`), { perHolder: 2, originCopies: 2 });
    const result = modelFanOut({ waves, bytes: 100 * MB, links: even(10 * MB), hopOverheadS: 0 });
    expect(result.lastS).toBeCloseTo(4 * 20);
    expect(result.uplinkCopies.get('c')).toBe(2);
  });
});

describe('modelPipelinedChain', () => {
  it.each([
    { sites: 1, lastS: 12 },
    { sites: 40, lastS: 10 + 39 * 0.4 + 2 },
  ])('$sites sites, 4 MB pieces', ({ sites, lastS }) => {
    expect(modelPipelinedChain(sites, 100 * MB, { upBps: 10 * MB, downBps: 10 * MB }, 4 * MB, 2)).toBeCloseTo(lastS);
  });
});
