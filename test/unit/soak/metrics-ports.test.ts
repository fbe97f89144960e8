import { describe, expect, it } from 'vitest';
import { metricsPortsOf } from '../../../scripts/soak/metrics-ports.js';

describe('the soak\'s metrics ports', () => {
  it.each([
    // Two dev clouds of one machine (B=24000 and B=26000): two soaks at once take ports of their own dev cloud's range.
    ['http://127.0.0.1:24000/v3', 4, { agents: [24010, 24011, 24012, 24013], sync: 24019 }],
    ['http://127.0.0.1:26000/v3', 4, { agents: [26010, 26011, 26012, 26013], sync: 26019 }],
    ['http://127.0.0.1:15000/v3', 2, { agents: [15010, 15011], sync: 15019 }],
  ] as const)('keystone at %s, %i nodes', (keystone, nodes, expected) => {
    expect(metricsPortsOf(keystone, nodes)).toEqual(expected);
  });

  it('an explicit first port wins', () => {
    expect(metricsPortsOf('http://127.0.0.1:24000/v3', 2, 30000)).toEqual({ agents: [30000, 30001], sync: 30009 });
  });

  it('more than 9 nodes would reach the sync watch\'s port: refused, with the fix', () => {
    expect(() => metricsPortsOf('http://127.0.0.1:24000/v3', 10)).toThrow(/at most 9 nodes/);
  });
});
