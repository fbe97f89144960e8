// Contract: docs/security.md says what packaging/glance/ferry-policy.yaml holds, in words an operator merging it by
// hand follows. Every count of its rules says the file's count, and the rules block shows the file's rules exactly.
// (Issue 34: the page said to merge "four rules" while the file holds five; the fifth, `default`, is the one that keeps
// the role ferry to its grants, so a merge of four gave a ferry token of the owning project delete and upload.)
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const policy = parse(readFileSync('packaging/glance/ferry-policy.yaml', 'utf8')) as Record<string, string>;
const security = readFileSync('docs/security.md', 'utf8');
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('docs/security.md and ferry-policy.yaml', () => {
  it('every "N rules" of the policy file says the file\'s count', () => {
    const counts = [...security.matchAll(/(?:merge its|ferry-policy\.yaml holds) (\w+) rules/g)].map((match) => match[1]);
    expect(counts.length).toBeGreaterThanOrEqual(2);
    expect(counts).toEqual(counts.map(() => WORDS[Object.keys(policy).length]));
  });

  it('the rules block shows the file\'s rules, each with its value', () => {
    const block = /ferry-policy\.yaml holds \w+ rules:\n\n```yaml\n([\s\S]*?)```/.exec(security)?.[1];
    expect(block).toBeDefined();
    expect(parse(block ?? '')).toEqual(policy);
  });
});
