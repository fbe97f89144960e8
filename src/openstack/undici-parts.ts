/**
 * The two parts of undici ferry uses: the Agent (keep-alive pool, per-phase timeouts) and buildConnector (TLS files,
 * connect timeout). Requests themselves go through Node's global fetch, which nock intercepts in unit tests.
 *
 * Why not `import { Agent } from 'undici'`: undici's index loads all of undici — its own fetch, WebSocket, caches,
 * mocks (1.1 MB bundled) — beside the copy of undici inside Node that serves the global fetch. Loading only these
 * two modules saves every `ferry` process ~40 ms of start-up and the agent its memory (bench/RESULTS.md, startup).
 * undici has no exports map, the lockfile pins its version, and test/unit/openstack/undici-parts.test.ts checks that
 * these are the very classes the index exports.
 */
import UndiciAgent from 'undici/lib/dispatcher/agent.js';
import undiciBuildConnector from 'undici/lib/core/connect.js';

export const Agent = UndiciAgent;
export const buildConnector = undiciBuildConnector;
