import { describe } from 'vitest';
import { nodeChecksDocument, nodeChecksJsonSchema } from '../../../src/contract/node-checks-document.js';
import { judgeNode } from '../../../src/host/judge-node.js';
import { itKeepsItsContract, MISSING } from './document-case.js';

describe('contract/node-checks-document', () => {
  // A node whose agent's socket has the wrong group and whose agent does not answer: checks ok, warn and fail.
  itKeepsItsContract('ferry doctor --json', nodeChecksJsonSchema, () => nodeChecksDocument(judgeNode({
    socket: { path: '/run/ferry/agent.sock', stat: { isSocket: true, mode: 0o140660, gid: 0, group: 'root' } },
    socketGroup: 'nova', version: '0.1.0',
    agent: { answered: false, code: 'ECONNREFUSED', message: 'connect ECONNREFUSED /run/ferry/agent.sock' },
    nova: { files: ['/etc/nova/nova.conf'], libvirt: { images_type: 'rbd', images_rbd_glance_store_name: 'site-b' } },
    novaPatch: 'none',
  })), [
    { why: 'a status no check has', path: ['checks', 0, 'status'], value: 'error' },
    { why: 'a check without its hint key', path: ['checks', 0, 'hint'], value: MISSING },
    { why: 'ok as a string', path: ['ok'], value: 'false' },
    { why: 'an unknown key in a check', path: ['checks', 0, 'severity'], value: 'high' },
  ]);
});
