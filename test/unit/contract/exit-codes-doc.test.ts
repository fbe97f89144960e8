import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE, FERRY_ERROR_CODES } from '../../../src/errors/error-table.js';

const doc = readFileSync('docs/exit-codes.md', 'utf8');
const documented = new Map([...doc.matchAll(/^\| (\d+) \| `(FERRY_[A-Z_]+)` \|/gm)].map((m) => [m[2]!, Number(m[1])]));

describe('docs/exit-codes.md', () => {
  it.each(FERRY_ERROR_CODES.map((code) => ({ code })))('exit-codes doc: $code is documented with its exit code', ({ code }) => {
    expect(documented.get(code)).toBe(ERROR_TABLE[code].exit);
  });

  it('exit-codes doc: documents no code the table lacks', () => {
    expect([...documented.keys()].filter((code) => !(code in ERROR_TABLE))).toEqual([]);
  });

  it('exit-codes: every code has its own exit number', () => {
    const exits = FERRY_ERROR_CODES.map((code) => ERROR_TABLE[code].exit);
    expect(new Set(exits).size).toBe(exits.length);
  });
});
