import type { z } from 'zod';
import { COMMANDS } from '../command-registry.js';
import { errorJsonSchema } from '../../contract/error-document.js';

/**
 * Every JSON document ferry prints, by name: each command's `jsonSchema` (from its src/contract/ document, beside the
 * function its `toJson` names, so the two change together) and `error`. The one index docs/cli.md is checked against (test/unit/contract/cli-json-doc.test.ts).
 * Loads every command module: for tests and tools, never on a command's path.
 */
export async function jsonSchemas(): Promise<Readonly<Record<string, z.ZodType>>> {
  const entries = await Promise.all(Object.entries(COMMANDS).map(async ([name, entry]) => [name, (await entry.load()).jsonSchema] as const));
  return Object.freeze(Object.fromEntries([...entries.flatMap(([name, schema]) => (schema === undefined ? [] : [[name, schema] as const])),
    ['error', errorJsonSchema]]));
}
