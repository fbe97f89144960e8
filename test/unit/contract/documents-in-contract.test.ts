import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/cli/command-registry.js';

/** Every schema src/contract/'s documents export, by identity. */
async function contractSchemas(): Promise<ReadonlySet<unknown>> {
  const files = readdirSync('src/contract').filter((file) => file.endsWith('-document.ts'));
  const modules = await Promise.all(files.map(async (file) => (await import(`../../../src/contract/${file.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>));
  return new Set(modules.flatMap((exports) => Object.entries(exports).filter(([name]) => name.endsWith('JsonSchema')).map(([, schema]) => schema)));
}

describe('every JSON document a command prints lives in src/contract/', () => {
  it.each(Object.keys(COMMANDS).map((command) => ({ command })))('ferry $command: its jsonSchema is one src/contract/ exports', async ({ command }) => {
    const spec = await COMMANDS[command]!.load();
    expect(spec.jsonSchema).toBeDefined();
    expect((await contractSchemas()).has(spec.jsonSchema)).toBe(true);
  });
});
