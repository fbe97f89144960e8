import { describe } from 'vitest';
import { configShowReport } from '../../../src/config/config-show-report.js';
import { resolveConfig } from '../../../src/config/resolve-config.js';
import { configShowDocument, configShowJsonSchema } from '../../../src/contract/config-show-document.js';
import { itKeepsItsContract, MISSING } from './document-case.js';

describe('contract/config-show-document', () => {
  itKeepsItsContract('ferry config show --json', configShowJsonSchema, () => configShowDocument(configShowReport(resolveConfig({
    flags: { store: 'site-b', 'ceph-conf': '/etc/ceph/site-b.conf' },
    env: { OS_AUTH_URL: 'https://keystone.site-b:5000/v3', OS_USERNAME: 'ferry', OS_PASSWORD: 'not-shown' },
    cwd: '/srv', homeDir: '/home/ferry', euid: 1000, readFile: () => undefined,
  }))), [
    { why: 'a value without its source', path: ['values', 0, 'source'], value: MISSING },
    { why: 'an unknown key in the origin', path: ['origin', 'cloudsFile'], value: null },
    { why: 'the nova.conf files as one string', path: ['origin', 'nova_conf_files'], value: '/etc/nova/nova.conf' },
    { why: 'missing_auth left out', path: ['missing_auth'], value: MISSING },
  ]);
});
