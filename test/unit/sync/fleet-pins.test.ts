import { describe, expect, it } from 'vitest';
import { parseImage, type GlanceImage } from '../../../src/glance/image.js';
import type { StoreCatalogue } from '../../../src/fleet/store-catalogue.js';
import type { PoolImage, PoolListing } from '../../../src/rbd/store-copy-listing.js';
import { parseSyncPolicy } from '../../../src/fleet/parse-sync-policy.js';
import { planFleet } from '../../../src/sync/plan-fleet.js';
import { FLEET_VERBS } from '../../helpers/fleet-verbs.js';
import { FSID_B, imageBody } from '../../helpers/image-body.js';
import { DAY, MIB, NOW } from '../evict/copy-facts-fixture.js';

// A sync pass with a budget: an image's own pin (tag ferry-pin, property ferry_pin) counts only when a pin owner owns
// it: pin_owners: of the policy, else the project of ferry's credential.

const OPS = 'a0000000000000000000000000000001';
const TENANT = 'b0000000000000000000000000000002';
const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function image(n: number, owner: string): GlanceImage {
  return parseImage({ ...imageBody({ stores: ['central', 'site-b'] }), id: id(n), name: `img-${n}`, owner, tags: ['ferry-pin'],
    locations: [{ url: `file:///var/lib/glance/central/${id(n)}`, metadata: { store: 'central' } },
      { url: `rbd://${FSID_B}/images/${id(n)}/snap`, metadata: { store: 'site-b' } }] });
}

const poolImage = (n: number): PoolImage => ({ kind: 'image', name: id(n), id: `rbd${n}`, sizeBytes: 100 * MIB, usedBytes: 100 * MIB,
  createdMs: NOW - 3 * DAY, accessedMs: NOW - 3 * DAY, protected: true, meta: {}, trashedMs: undefined, clones: [] });
const pools = new Map<string, PoolListing>([['site-b', { pool: 'images', snapshot: 'snap', quotaBytes: undefined, replicas: 1, capacity: undefined,
  images: [poolImage(1), poolImage(2)], trash: [] }]]);
const catalogue: StoreCatalogue = { typesKnown: true, stores: [{ id: 'central', type: 'file', readOnly: false, isDefault: true },
  { id: 'site-b', type: 'rbd', readOnly: false, isDefault: false }] };
const images = [image(1, OPS), image(2, TENANT)];

function decisions(policyText: string): string[][] {
  const policy = parseSyncPolicy(`version: 1\nplacements:\n  - {images: {tag: golden}, stores: [site-b]}\nstores:\n  site-b: {budget: 50M, ceph_conf: /c}\n${policyText}`, 'edge.yaml');
  const fleet = planFleet({ policy, images, catalogue, pools, wallNowMs: NOW, run: 'r1', viewerProject: OPS }, FLEET_VERBS);
  return fleet.evictions[0]?.plan?.copies.map((entry) => [entry.copy.imageId, entry.action, entry.detail]) ?? [];
}

describe('planFleet: whose images pin themselves', () => {
  it('the credential\'s project\'s tag pins; a tenant\'s does not (remove_owners: [*]: its copy may go, so the ignored pin decides)', () => {
    expect(decisions('remove_owners: [\'*\']\n')).toEqual([
      [id(2), 'evict', 'last used 3 d ago (copied then)'],
      [id(1), 'keep', `pinned by its tag ferry-pin (owner ${OPS}, a pin owner)`]]);
  });

  it('by default the budget removes only the credential\'s project\'s copies: the tenant\'s stays not-owned, never sent a DELETE', () => {
    expect(decisions('').map(([image, action]) => [image, action])).toEqual([[id(1), 'keep'], [id(2), 'keep']]);
    expect(decisions('')[1]?.[2]).toBe(`owner ${TENANT} is not a remove owner (${OPS}): ferry's account may not remove its copies`);
    expect(decisions(`remove_owners: [${TENANT}]\n`).map(([image, action]) => [image, action])).toEqual([[id(2), 'evict'], [id(1), 'keep']]);
  });

  it('pin_owners: names them instead', () => {
    expect(decisions(`pin_owners: [${TENANT}]\nremove_owners: ['*']\n`).map(([image, action]) => [image, action])).toEqual([[id(1), 'evict'], [id(2), 'keep']]);
  });

  it('pin_owners: takes project IDs only', () => {
    expect(() => decisions('pin_owners: [my project]\n')).toThrow(/pin_owners\[0\]: a project ID, as Glance shows an image's owner/);
    expect(() => decisions('remove_owners: [a b]\n')).toThrow(/remove_owners\[0\]: a project ID/);
    expect(() => decisions('pin_owners: []\n')).toThrow(/list at least one project ID/);
  });
});
