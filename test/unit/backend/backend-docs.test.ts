import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { backendChoiceSchema } from '../../../src/backend/backend-choice.js';
import { resolveBackendConfig } from '../../../src/backend/resolve-backend-config.js';
import { selectBackend } from '../../../src/backend/select-backend.js';

// Contract: the JSON documented in docs/backend.md parses with the schema and is what the code returns.
const doc = readFileSync(new URL('../../../docs/backend.md', import.meta.url), 'utf8');
const marked = /<!-- schema: BackendChoice -->\n```json\n([\s\S]*?)\n```/.exec(doc)?.[1];

describe('docs/backend.md', () => {
  it('the BackendChoice example parses with backendChoiceSchema and matches selectBackend', () => {
    expect(marked).toBeDefined();
    const example: unknown = JSON.parse(marked ?? 'null');
    expect(backendChoiceSchema.safeParse(example).success).toBe(true);
    expect(example).toEqual(selectBackend('qcow2', resolveBackendConfig({ imagesType: 'rbd', imagesTypeMapping: 'qcow2:qcow2' })));
  });

  it('backendChoiceSchema rejects a choice without reason', () => {
    expect(backendChoiceSchema.safeParse({ backend: 'rbd', converted: false }).success).toBe(false);
  });
});
