import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import { describe, expect, it } from 'vitest';
import { Agent, buildConnector } from '../../../src/openstack/undici-parts.js';

// undici-parts loads two undici modules by path, to skip the rest of undici. If an undici update moves them, this
// fails here instead of in production.
describe('undici-parts', () => {
  const undici = createRequire(import.meta.url)('undici') as typeof Undici;

  it('are the very Agent and buildConnector undici exports', () => {
    expect(Agent).toBe(undici.Agent);
    expect(buildConnector).toBe(undici.buildConnector);
  });

  it('gives a working Agent', async () => {
    const agent = new Agent({ keepAliveTimeout: 1000 });
    expect(agent.closed).toBe(false);
    await agent.close();
    expect(agent.closed).toBe(true);
  });
});
