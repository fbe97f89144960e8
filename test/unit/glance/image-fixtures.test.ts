import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseImage } from '../../../src/glance/image.js';
import { parseImportInfo } from '../../../src/glance/image-import-info.js';
import { parseImageList } from '../../../src/glance/image-list.js';
import { parseStoresInfo } from '../../../src/glance/image-store-info.js';
import { parseTask, parseTaskList } from '../../../src/glance/image-task.js';

// Every 200 body under fixtures/glance (recorded from the dev cloud, or copied from the reference docs) must parse
// with the model for its endpoint: new recordings are checked without anyone writing a test for them.

const dir = new URL('../../../fixtures/glance/', import.meta.url);

interface Fixture {
  readonly file: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: unknown;
}

function requestOf(request: unknown): { method: string; path: string } {
  if (typeof request === 'string') {
    const [method = 'GET', target = ''] = request.trim().split(/\s+/);
    return { method: method.toUpperCase(), path: new URL(target, 'http://x').pathname };
  }
  const r = (request ?? {}) as { method?: string; path?: string; url?: string };
  return { method: (r.method ?? 'GET').toUpperCase(), path: new URL(r.path ?? r.url ?? '', 'http://x').pathname };
}

const fixtures: Fixture[] = readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .map((file) => {
    const raw = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { request?: unknown; status?: number; body?: unknown };
    return { file, ...requestOf(raw.request), status: raw.status ?? 0, body: raw.body };
  })
  .filter((fixture) => fixture.method === 'GET' && fixture.status === 200);

const parsers: readonly { readonly pattern: RegExp; readonly parse: (body: unknown, endpoint: string) => unknown }[] = [
  { pattern: /^\/v2\/images\/?$/, parse: parseImageList },
  { pattern: /^\/v2\/images\/[^/]+\/tasks\/?$/, parse: parseTaskList },
  { pattern: /^\/v2\/images\/[^/]+\/?$/, parse: parseImage },
  { pattern: /^\/v2\/tasks\/[^/]+\/?$/, parse: parseTask },
  { pattern: /^\/v2\/info\/stores(\/detail)?\/?$/, parse: parseStoresInfo },
  { pattern: /^\/v2\/info\/import\/?$/, parse: parseImportInfo },
];

const modelled = fixtures.flatMap((fixture) => {
  const parser = parsers.find((p) => p.pattern.test(fixture.path));
  return parser === undefined ? [] : [{ ...fixture, parse: parser.parse }];
});

describe('Glance fixtures', () => {
  it('Glance fixtures: there is at least one modelled body to check', () => {
    expect(modelled.length).toBeGreaterThan(0);
  });

  it.each(modelled)('Glance fixtures: $file ($method $path) parses', ({ body, method, path, parse }) => {
    expect(() => parse(body, `${method} ${path}`)).not.toThrow();
  });
});
