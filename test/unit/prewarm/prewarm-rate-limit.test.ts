import { describe, expect, it } from 'vitest';
import { resolvePrewarmOptions } from '../../../src/prewarm/prewarm-options.js';
import { parseTimeWindow } from '../../../src/clock/time-window.js';

// Issue 37: --rate-limit paces the direct transfer only; with Glance's copy-image it is refused before any request.
describe('prewarm options: rate limit and window', () => {
  it('a rate limit with --transfer glance is refused, naming the fix', () => {
    expect(() => resolvePrewarmOptions({ stores: ['site-b'], bytesPerSecond: 1e6 }))
      .toThrow(/a rate limit paces the direct RBD transfer, but the transfer is glance/);
  });

  it.each(['rbd', 'auto'] as const)('with --transfer %s it is kept, with the window', (transfer) => {
    const window = parseTimeWindow('22:00-06:00');
    const options = resolvePrewarmOptions({ stores: ['site-b'], bytesPerSecond: 1e6, window, transfer, sourceCephConfs: { 'site-a': '/etc/ceph/a.conf' } });
    expect(options).toMatchObject({ bytesPerSecond: 1e6, window });
  });
});
