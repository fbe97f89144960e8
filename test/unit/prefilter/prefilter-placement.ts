// The five compute nodes recorded by scripts/devcloud/recorder/prefilter-cases.ts (Placement 8.0.0, 1.39), and nock
// scaffolding that serves their answers. Every UUID and name is read from the recordings.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type nock from 'nock';
import { OS_TRAITS_BASE } from '../../../src/traits/os-traits-base.js';
import { loadExchange, replay, type PrefilterPlacementFixture, type ReplayOptions } from '../../helpers/fixtures.js';
import { at } from '../placement/placement-nock.js';

export const SCOPE = 'CUSTOM_FERRY_PREFILTER_FIXTURE';

interface RecordedProvider { readonly uuid: string; readonly name: string }

/** pf-host-a … e: name and UUID, from the recorded `GET /resource_providers?required=<scope>`. */
export const HOSTS: Readonly<Record<'a' | 'b' | 'c' | 'd' | 'e', RecordedProvider>> = (() => {
  const list = (loadExchange('placement', 'prefilter-providers').body as { resource_providers: RecordedProvider[] }).resource_providers;
  const by = (label: string): RecordedProvider => {
    const found = list.find((p) => p.name.endsWith(`pf-host-${label}`));
    if (found === undefined) throw new Error(`prefilter-providers has no pf-host-${label}`);
    return { uuid: found.uuid, name: found.name };
  };
  return { a: by('a'), b: by('b'), c: by('c'), d: by('d'), e: by('e') };
})();

/** The body `GET /resource_providers/{uuid}` answers for one host: the listing's entry (same fields). */
export function providerBody(label: keyof typeof HOSTS): Record<string, unknown> {
  const list = (loadExchange('placement', 'prefilter-providers').body as { resource_providers: Record<string, unknown>[] }).resource_providers;
  const found = list.find((p) => p.uuid === HOSTS[label].uuid);
  if (found === undefined) throw new Error(`no provider body for ${label}`);
  return found;
}

/** The recorded answer `name`, served once at 1.39 (at another path when the query differs from the recorded one). */
export function serve(name: PrefilterPlacementFixture, options: ReplayOptions & { scope?: nock.Scope } = {}): nock.Scope {
  return replay(options.scope ?? at(), loadExchange('placement', name), options);
}

/** `GET /traits`: Placement 8.0.0 knows os-traits 2.9.0 plus the custom scope trait. */
export function allTraits(scope: nock.Scope = at()): nock.Scope {
  return scope.get('/traits').reply(200, { traits: [...OS_TRAITS_BASE.names, SCOPE] });
}

/** `GET /resource_providers/{uuid}` for one host. */
export function provider(label: keyof typeof HOSTS, scope: nock.Scope = at()): nock.Scope {
  return scope.get(`/resource_providers/${HOSTS[label].uuid}`).reply(200, providerBody(label));
}

/** The recorded query for `memory` MB: qcow2 + x86_64 image, the scope trait required by the flavor. */
export const QUERY_512 = loadExchange('placement', 'prefilter-candidates').request.path;
export const QUERY_1024 = loadExchange('placement', 'prefilter-candidates-1024').request.path;

/** The image the recorded queries were made for, as a Glance body (fixtures/images/qcow2.json + hw_architecture). */
export function x86Qcow2Image(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base = JSON.parse(readFileSync('fixtures/images/qcow2.json', 'utf8')) as Record<string, unknown>;
  return { ...base, hw_architecture: 'x86_64', ...extra };
}

/** Writes an image body to a FILE.json for `--image` (see contentFile). */
export function imageFile(body: Record<string, unknown>, name = 'image.json'): string {
  return contentFile(JSON.stringify(body), name);
}

/**
 * A file holding `text`, named after its content so that runs and parallel test files share one file per content
 * instead of piling up; written under another name and renamed, so no reader sees it half done.
 */
export function contentFile(text: string, name: string): string {
  const dir = join(tmpdir(), 'ferry-unit-files');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${createHash('sha256').update(text).digest('hex').slice(0, 16)}-${name}`);
  const partial = `${path}.${process.pid}`;
  writeFileSync(partial, text);
  renameSync(partial, path);
  return path;
}

/** The flavor extra spec that scopes the recorded queries to the five hosts. */
export const SCOPE_SPEC = ['--flavor-extra-spec', `trait:${SCOPE}=required`] as const;
