// Contract (issue 34): what every answer of the ferry agent makes nova do is ONE table, in docs/nova-patch.md
// ("What every answer of the agent makes nova do"), and the nova patches decide by the same table. Every error code
// of src/errors/error-table.ts has one row there; its "nova does" says the same as the lists of the patch
// (_ferry_agent_answer() over FERRY_AGENT_*_CODES); a code the patch names in no list is one the agent never answers
// POST /v1/ensure with (nova would fall back, as for a code it does not know). Both patches carry the same lists.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FERRY_ERROR_CODES } from '../../../src/errors/error-table.js';

const DOC = 'docs/nova-patch.md';
const HEADING = '## What every answer of the agent makes nova do';
const PATCHES = ['integrations/nova/nova-26-imagebackend.patch', 'integrations/nova/nova-34-imagebackend.patch'];

/** The words of the table's "nova does" column, and the patch's lists each one stands for. */
const DOES = {
  clone: [],
  verdict: ['FERRY_AGENT_VERDICT_CODES'],
  'verdict when the patch sent the user\'s token and the agent says it looked as the user (`details.seen_as: "user"`), else nova\'s own copy': ['FERRY_AGENT_USER_VERDICT_CODES'],
  'asked again, then nova\'s own copy': ['FERRY_AGENT_AWAY_CODES'],
  'nova\'s own copy': ['FERRY_AGENT_NOT_SERVED_CODES', 'FERRY_AGENT_GAVE_UP_CODES', 'FERRY_AGENT_OWN_FAULT_CODES'],
  'not an answer (nova\'s own copy)': [],
} as const satisfies Record<string, readonly string[]>;
type Does = keyof typeof DOES;

interface Row { readonly answer: string; readonly does: string; readonly why: string }

/** The rows of the first table under HEADING: | answer | nova does | why |. */
function answerTable(markdown: string): Row[] {
  const start = markdown.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`${DOC} has no heading '${HEADING}'`);
  const lines = markdown.slice(start + HEADING.length + 2).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const table = lines.slice(first).filter((_, index, all) => all.slice(0, index + 1).every((line) => line.startsWith('|')));
  const cells = (line: string): string[] => line.slice(1, -1).split(' | ').map((cell) => cell.trim());
  expect(cells(table[0] ?? '')).toEqual(['answer', 'nova does', 'why']);
  return table.slice(2).map(cells).map(([answer = '', does = '', why = '']) => ({ answer, does, why }));
}

/** The code lists of a nova patch: NAME → codes, from its added lines. */
function patchLists(text: string): Map<string, string[]> {
  const added = text.split('\n').filter((line) => line.startsWith('+')).map((line) => line.slice(1)).join('\n');
  const lists = new Map<string, string[]>();
  for (const match of added.matchAll(/^(FERRY_AGENT_[A-Z_]+_CODES) = \(([^)]*)\)/gm)) {
    lists.set(match[1] ?? '', [...(match[2] ?? '').matchAll(/'(FERRY_[A-Z_]+)'/g)].map((code) => code[1] ?? ''));
  }
  return lists;
}

/** What the patch does with each code it names, in the table's words. */
function patchDoes(lists: Map<string, string[]>): Map<string, Does> {
  const does = new Map<string, Does>();
  for (const [words, names] of Object.entries(DOES) as [Does, readonly string[]][]) {
    for (const name of names) {
      const codes = lists.get(name);
      if (codes === undefined) throw new Error(`the patch has no list ${name}`);
      for (const code of codes) {
        if (does.has(code)) throw new Error(`${code} is in two of the patch's lists`);
        does.set(code, words);
      }
    }
  }
  return does;
}

const rows = answerTable(readFileSync(DOC, 'utf8'));
const codeRows = rows.filter((row) => /^`FERRY_[A-Z_]+`$/.test(row.answer));
const codeOf = (row: Row): string => row.answer.slice(1, -1);

describe(`the answer table of ${DOC} and the nova patches`, () => {
  it('every row says one of the table\'s outcomes, and why', () => {
    for (const row of rows) {
      expect(Object.keys(DOES), row.answer).toContain(row.does);
      expect(row.why.length, row.answer).toBeGreaterThan(20);
    }
    // The rows that are no error code: the answer nova clones from, and what no code names.
    expect(rows.filter((row) => !codeRows.includes(row)).map((row) => row.does)).toEqual(expect.arrayContaining(['clone', 'verdict']));
  });

  it('every code of src/errors/error-table.ts has exactly one row, and every code row is a code ferry has', () => {
    expect(codeRows.map(codeOf).sort()).toEqual([...FERRY_ERROR_CODES].sort());
  });

  it.each(PATCHES)('%s decides each code as the table says (a code in none of its lists: "not an answer")', (patch) => {
    const does = patchDoes(patchLists(readFileSync(patch, 'utf8')));
    for (const code of does.keys()) expect(FERRY_ERROR_CODES, `the patch names ${code}, which ferry does not have`).toContain(code);
    const table = new Map(codeRows.map((row) => [codeOf(row), row.does]));
    const fromPatch = new Map([...table.keys()].map((code) => [code, does.get(code) ?? 'not an answer (nova\'s own copy)']));
    expect(Object.fromEntries(fromPatch)).toEqual(Object.fromEntries(table));
  });

  it('both patches carry the same lists', () => {
    const [a, b] = PATCHES.map((patch) => Object.fromEntries(patchLists(readFileSync(patch, 'utf8'))));
    expect(Object.keys(a ?? {})).toHaveLength(6);
    expect(a).toEqual(b);
  });
});
