import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { traitsJsonSchema } from '../../../src/contract/traits-document.js';
import { traitsReportJsonSchema } from '../../../src/contract/traits-report-document.js';

// Every JSON example docs/cli.md gives for the traits commands parses with the schema the tests hold stdout to.
const doc = readFileSync('docs/cli.md', 'utf8');
const examples = (name: string): unknown[] =>
  [...doc.matchAll(new RegExp(`<!-- json: ${name} -->\\n\`\`\`json\\n([\\s\\S]*?)\\n\`\`\``, 'g'))].map((m) => JSON.parse(m[1] ?? '') as unknown);

describe('docs/cli.md: traits JSON examples', () => {
  it('docs/cli.md: ferry traits example parses with traitsJsonSchema', () => {
    const found = examples('traits');
    expect(found).toHaveLength(1);
    for (const example of found) expect(traitsJsonSchema.safeParse(example).success).toBe(true);
  });

  it('docs/cli.md: ferry traits report example parses with traitsReportJsonSchema and is self-consistent', () => {
    const found = examples('traits report');
    expect(found).toHaveLength(1);
    const report = traitsReportJsonSchema.parse(found[0]);
    expect(report.traits).toEqual([...new Set([...report.kept, ...report.added])].sort());
  });
});
