import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createAgentMetrics, type AgentMetrics } from '../../../src/agent/agent-metrics.js';
import { resolveAgentOptions } from '../../../src/agent/agent-options.js';
import { createAgentServer, type AgentServer } from '../../../src/agent/agent-server.js';
import { createHostService as createCloudAgentService } from '../../../src/host/host-service.js';
import type { Cloud } from '../../../src/cloud/cloud.js';
import { silentLogger, type Logger } from '../../../src/logging/logger.js';
import { tempSocketDir } from './agent-http.js';

/**
 * A real agent server over a given cloud, on a fresh socket per test (localhost allowed through nock, the server shut
 * down and the socket dir removed after each). Call at the top level of a test file.
 */
export function cloudAgentHarness(): { socket(): string; start(cloud: Cloud, logger?: Logger): Promise<AgentMetrics> } {
  let socketDir: ReturnType<typeof tempSocketDir> | undefined;
  let server: AgentServer | undefined;
  beforeAll(() => nock.enableNetConnect('localhost'));
  afterAll(() => nock.disableNetConnect());
  beforeEach(() => {
    socketDir = tempSocketDir();
  });
  afterEach(async () => {
    await server?.shutdown();
    server = undefined;
    socketDir?.cleanup();
  });
  const socket = (): string => {
    if (socketDir === undefined) throw new Error('cloudAgentHarness: no socket outside a test');
    return socketDir.socket;
  };
  return {
    socket,
    async start(cloud, logger = silentLogger) {
      const metrics = createAgentMetrics({ processMetrics: false });
      server = createAgentServer({ metrics, logger, options: resolveAgentOptions({ socketPath: socket() }),
        service: createCloudAgentService({ acquire: () => ({ cloud, config: cloud.config, release: () => undefined }) }) });
      await server.listen();
      return metrics;
    },
  };
}
