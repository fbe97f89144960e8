import { readFileSync } from 'node:fs';
import { describe } from 'vitest';
import { matrixDocument, matrixJsonSchema } from '../../../src/contract/matrix-document.js';
import { parseImage } from '../../../src/glance/image.js';
import { buildStoreMatrix } from '../../../src/prewarm/store-matrix.js';
import { itKeepsItsContract, MISSING } from './document-case.js';

const image = parseImage((JSON.parse(readFileSync('fixtures/glance/image-active-site-a.json', 'utf8')) as { body: unknown }).body);

describe('contract/matrix-document', () => {
  itKeepsItsContract('ferry status --matrix --json', matrixJsonSchema, () => matrixDocument(buildStoreMatrix([image],
    [{ id: 'site-a', type: 'rbd', readOnly: false, isDefault: false }, { id: 'site-b', type: 'rbd', readOnly: false, isDefault: false }],
    [{ ref: 'cirros-gone', code: 'FERRY_IMAGE_NOT_FOUND', reason: 'no image has the ID or name cirros-gone' }])), [
    { why: 'a cell no plan state names', path: ['images', 0, 'cells', 'site-b'], value: 'absent' },
    { why: 'a count below 0', path: ['counts', 'missing'], value: -1 },
    { why: 'an image without its status', path: ['images', 0, 'status'], value: MISSING },
    { why: 'an unresolved name without its reason', path: ['unresolved', 0, 'reason'], value: MISSING },
  ]);
});
