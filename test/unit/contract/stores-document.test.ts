import { readFileSync } from 'node:fs';
import { describe } from 'vitest';
import { storesDocument, storesJsonSchema } from '../../../src/contract/stores-document.js';
import { parseStoresInfo } from '../../../src/glance/image-store-info.js';
import { storeOverview } from '../../../src/glance/store-overview.js';
import { itKeepsItsContract, MISSING } from './document-case.js';

const detail = (JSON.parse(readFileSync('fixtures/glance/info-stores-detail.json', 'utf8')) as { body: unknown }).body;

describe('contract/stores-document', () => {
  itKeepsItsContract('ferry stores --json', storesJsonSchema, () => storesDocument({
    overview: storeOverview(parseStoresInfo(detail), 'GET /v2/info/stores/detail', { store: 'site-b' }),
    answers: [{ store: 'site-b', answers: true, why: 'ceph fsid and rbd ls images answered in 0.4 s' }],
  }), [
    { why: 'a source ferry never reads', path: ['source'], value: 'GET /v2/stores' },
    { why: 'a store without answers_why', path: ['stores', 0, 'answers_why'], value: MISSING },
    { why: 'an unknown key in a store', path: ['stores', 0, 'readOnly'], value: false },
    { why: 'answers as a word', path: ['stores', 2, 'answers'], value: 'yes' },
  ]);
});
