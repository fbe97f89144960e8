import { describe, expect, it } from 'vitest';
import { agentDocument, agentJsonSchema } from '../../../src/contract/agent-document.js';
import { itKeepsItsContract, MISSING } from './document-case.js';

describe('contract/agent-document', () => {
  itKeepsItsContract('ferry agent --json', agentJsonSchema, () => agentDocument({ socketPath: '/run/ferry/agent.sock', requests: 12, reloads: 1,
    metricsListen: '127.0.0.1:9464' }), [
    { why: 'a request count that is no integer', path: ['requests'], value: 1.5 },
    { why: 'the socket left out', path: ['socket'], value: MISSING },
    { why: 'the metrics listener as a number', path: ['metrics_listen'], value: 9464 },
  ]);

  it('ferry agent --json: no metrics_listen key without --metrics-listen', () => {
    expect(Object.keys(agentDocument({ socketPath: '/run/ferry/agent.sock', requests: 0, reloads: 0, metricsListen: undefined })))
      .toEqual(['socket', 'requests', 'reloads']);
  });
});
