import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/cli/command-registry.js';
import { jsonSchemas } from '../../../src/cli/output/json-schemas.js';

/**
 * docs/cli.md against the code: every JSON example tagged `<!-- json: COMMAND -->` (or `error`) parses with that
 * command's schema, every key that is a name (not data) is snake_case, and every command has an example.
 */
const doc = readFileSync('docs/cli.md', 'utf8');
const examples = [...doc.matchAll(/<!-- json: ([a-z][a-z -]*?) -->\s*```json\n([\s\S]*?)```/g)].map((m, index) => ({
  command: m[1]!, json: m[2]!, index,
}));

/** camelCase keys anywhere in a document; keys of records (trait names, stores, formats) never have an inner capital after a lowercase letter. */
function camelKeys(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => camelKeys(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [...(/[a-z][A-Z]/.test(key) ? [`${path}.${key}`] : []), ...camelKeys(inner, `${path}.${key}`)]);
}

describe('docs/cli.md JSON examples', () => {
  it('cli doc: has tagged JSON examples', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(examples)('cli doc: example $index of $command parses with its schema', async ({ command, json }) => {
    const schema = (await jsonSchemas())[command];
    expect(schema, `no JSON schema named ${command}`).toBeDefined();
    const result = schema!.safeParse(JSON.parse(json));
    expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
  });

  it.each(examples)('cli doc: example $index of $command has snake_case keys only', ({ json }) => {
    expect(camelKeys(JSON.parse(json))).toEqual([]);
  });

  it('camelKeys: finds a camelCase key under a record, not a trait name or a store name', () => {
    expect(camelKeys({ reasons: { HW_ARCH_X86_64: 'x', 'site-b': 1 }, storage: { keptFormats: {} } })).toEqual(['$.storage.keptFormats']);
  });

  it.each(Object.keys(COMMANDS).map((command) => ({ command })))('cli doc: command $command is documented', ({ command }) => {
    expect(doc).toMatch(new RegExp(`^## ferry ${command.replace('-', '[ -]')}\\b`, 'm'));
  });

  it.each(Object.keys(COMMANDS).map((command) => ({ command })))('cli doc: command $command has a JSON example and a schema', async ({ command }) => {
    const spec = await COMMANDS[command]!.load();
    expect(spec.jsonSchema, `${command}: no jsonSchema`).toBeDefined();
    expect(examples.map((e) => e.command)).toContain(command);
  });
});
