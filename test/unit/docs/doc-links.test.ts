import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { githubAnchor, headingAnchors, relativeLinks } from '../../helpers/markdown-anchors.js';

// Every relative link of the README and docs/ reaches a file, and an anchor one of its headings: the docs point at
// each other's sections (security.md ↔ agent.md ↔ copy.md), and a heading renamed by one change breaks the others.

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

describe('markdown anchors (GitHub rules)', () => {
  it.each([
    ['The unit: credentials, nova.conf and the sandbox', 'the-unit-credentials-novaconf-and-the-sandbox'],
    ['`GET /healthz`', 'get-healthz'],
    ['agent-nova: nova 26 unpatched vs patched, side by side', 'agent-nova-nova-26-unpatched-vs-patched-side-by-side'],
    ['Where each part runs (DCN)', 'where-each-part-runs-dcn'],
    ['The import lock: stuck, dead, expired, taken over', 'the-import-lock-stuck-dead-expired-taken-over'],
  ])('%s → #%s', (heading, anchor) => {
    expect(githubAnchor(heading)).toBe(anchor);
  });

  it('a repeated heading gets -1, -2 …; headings inside code fences are not headings', () => {
    const text = ['# A', '## Usage', '```sh', '# not a heading', '```', '## Usage', '## Usage'].join('\n');
    expect([...headingAnchors(text)]).toEqual(['a', 'usage', 'usage-1', 'usage-2']);
  });
});

describe('docs links', () => {
  const files = ['README.md', ...markdownFiles('docs')];

  it('every relative link reaches a file, and every anchor a heading of it', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const link of relativeLinks(readFileSync(file, 'utf8'))) {
        const [path, anchor] = link.split('#', 2) as [string, string | undefined];
        const target = path === '' ? file : normalize(join(dirname(file), path));
        if (!existsSync(target)) broken.push(`${file}: ${link} (no such file)`);
        else if (anchor && target.endsWith('.md') && !headingAnchors(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${file}: ${link} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
