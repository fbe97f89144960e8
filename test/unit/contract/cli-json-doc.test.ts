import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/cli/command-registry.js';

/** Every JSON example in docs/cli.md tagged `<!-- json: COMMAND -->` parses with that command's schema. */
const doc = readFileSync('docs/cli.md', 'utf8');
const examples = [...doc.matchAll(/<!-- json: ([a-z-]+) -->\s*```json\n([\s\S]*?)```/g)].map((m, index) => ({
  command: m[1]!, json: m[2]!, index,
}));

describe('docs/cli.md JSON examples', () => {
  it('cli doc: has tagged JSON examples', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(examples)('cli doc: example $index of $command parses with its schema', async ({ command, json }) => {
    const entry = COMMANDS[command];
    expect(entry, `no command ${command}`).toBeDefined();
    const spec = await entry!.load();
    expect(spec.jsonSchema, `${command} has no jsonSchema`).toBeDefined();
    const result = spec.jsonSchema!.safeParse(JSON.parse(json));
    expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
  });

  it.each(Object.keys(COMMANDS).map((command) => ({ command })))('cli doc: command $command is documented', ({ command }) => {
    expect(doc).toMatch(new RegExp(`^## ferry ${command.replace('-', '[ -]')}\\b`, 'm'));
  });
});
