import { expect, it } from 'vitest';
import type { z } from 'zod';

/** Marks a key a wrong shape leaves out. */
export const MISSING = Symbol('missing');

/** One way a document can be wrong: the value at `path` replaced (MISSING: the key left out, a new key: added). */
export interface WrongShape {
  readonly why: string;
  readonly path: readonly (string | number)[];
  readonly value: unknown;
}

/** The printed document with one value replaced, left out or added; the printed one is never changed. */
function withValue(json: unknown, path: readonly (string | number)[], value: unknown): unknown {
  const copy: unknown = structuredClone(json);
  const parent = path.slice(0, -1).reduce<unknown>((at, key) => (at as Record<string | number, unknown>)[key], copy) as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === MISSING) delete parent[last];
  else parent[last] = value;
  return copy;
}

/**
 * A document's contract, as every command's test checks it: the JSON printed for a real case (the document through
 * JSON.stringify, as the runner prints it) parses with the schema and comes out unchanged, and each wrong shape is
 * refused, at the field it breaks (or the object that got an unknown key).
 */
export function itKeepsItsContract(name: string, schema: z.ZodType, document: () => unknown, wrong: readonly WrongShape[]): void {
  const printed = (): unknown => JSON.parse(JSON.stringify(document()));

  it(`${name}: the printed JSON of a real case parses with the schema, unchanged`, () => {
    const json = printed();
    expect(schema.parse(json)).toEqual(json);
  });

  it.each(wrong)(`${name}: the schema refuses $why`, ({ path, value }) => {
    const result = schema.safeParse(withValue(printed(), path, value));
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((issue) => issue.path.join('.')) ?? [];
    expect(paths.some((at) => at === path.join('.') || at === path.slice(0, -1).join('.')), JSON.stringify(result.error?.issues)).toBe(true);
  });
}
