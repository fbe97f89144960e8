import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { httpStatusFor } from '../../../src/agent/http-status.js';
import { progressDocument, progressJsonSchema } from '../../../src/contract/progress-document.js';
import { FERRY_ERROR_CODES, type FerryErrorCode } from '../../../src/errors/error-table.js';

/**
 * docs/agent.md against the code: the tagged JSON examples parse with their schemas, and the table of HTTP statuses
 * says what httpStatusFor answers, for every code it maps.
 */
const doc = readFileSync('docs/agent.md', 'utf8');
const examples = (tag: string): unknown[] => [...doc.matchAll(new RegExp(`<!-- json: ${tag} -->\\s*\`\`\`json\\n([\\s\\S]*?)\`\`\``, 'g'))]
  .map((m) => JSON.parse(m[1]!.replace(/^ {2}/gm, '')) as unknown);
const statusRows = [...doc.matchAll(/^\| (\d{3}) \| (.*) \|$/gm)].map((m) => ({ status: Number(m[1]), codes: [...m[2]!.matchAll(/`(FERRY_[A-Z_]+)`/g)].map((c) => c[1]!) }));

describe('docs/agent.md', () => {
  it('agent doc: the progress line example parses with progressJsonSchema', () => {
    const [example] = examples('agent-progress');
    expect(example).toBeDefined();
    const result = progressJsonSchema.safeParse(example);
    expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
  });

  it('agent doc: the TCP /healthz example is the verdict only, ok and failing', () => {
    const [example] = examples('agent-healthz-verdict');
    expect(example).toEqual({ ok: expect.any(Boolean) as unknown, failing: expect.any(Array) as unknown });
  });

  it('progressJsonSchema: refuses a field the contract does not name, and an unknown phase', () => {
    const line = progressDocument({ imageId: 'i', store: 's', phase: 'copying', elapsedMs: 1234.4, polls: 2, note: 'copying to s' });
    expect(line).toEqual({ progress: { image: 'i', store: 's', phase: 'copying', elapsed_seconds: 1.234, polls: 2, note: 'copying to s' } });
    expect(progressJsonSchema.safeParse({ progress: { ...line.progress, extra: 1 } }).success).toBe(false);
    expect(progressJsonSchema.safeParse({ progress: { ...line.progress, phase: 'waiting' } }).success).toBe(false);
  });

  it('agent doc: the status table lists every code the agent answers with a status of its own, under that status', () => {
    const mapped = FERRY_ERROR_CODES.filter((code) => httpStatusFor(code) !== 500 || code === 'FERRY_INTERNAL');
    const documented = new Map<FerryErrorCode, number[]>();
    for (const row of statusRows) for (const code of row.codes) documented.set(code as FerryErrorCode, [...documented.get(code as FerryErrorCode) ?? [], row.status]);
    expect(mapped.filter((code) => !(documented.get(code) ?? []).includes(httpStatusFor(code)))).toEqual([]);
    // A code under another status than its own: only the route errors (404 unknown route, 405 wrong method).
    const elsewhere = [...documented].flatMap(([code, statuses]) => statuses.filter((status) => status !== httpStatusFor(code)).map((status) => `${code} ${status}`));
    expect(elsewhere).toEqual(['FERRY_AGENT_BAD_REQUEST 404', 'FERRY_AGENT_BAD_REQUEST 405']);
  });
});
