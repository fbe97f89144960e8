import { describe, expect, it } from 'vitest';
import { selectImages } from '../../../src/fleet/select-images.js';
import { parseSyncPolicy } from '../../../src/fleet/parse-sync-policy.js';
import { policyWants, selectFromListing, unresolvedPolicyRefs } from '../../../src/fleet/policy-wants.js';
import { glanceSeenBy, listingSeenBy, type VisibleImage } from '../../helpers/glance-visibility.js';

// Sync with budgets resolves a policy's named images on one listing of every image; sync without them asks Glance per
// name (selectImages → findImage). A tenant must not steer the first where it cannot steer the second: both must give
// the same images and the same refusals, for the same project, on the same Glance.

const OPS = 'a0000000000000000000000000000001'; // the project ferry's credential is scoped to
const TENANT = 'b0000000000000000000000000000002'; // any project that can create, share or publish images
const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const GOLDEN: VisibleImage = { id: id(1), name: 'ubuntu-24.04', owner: OPS, visibility: 'public' };
const images: readonly VisibleImage[] = [
  GOLDEN,
  { id: id(2), name: 'ubuntu-24.04', owner: TENANT, visibility: 'community' }, // the tenant's look-alike
  { id: id(3), name: 'ubuntu-24.04', owner: TENANT, visibility: 'shared', members: { [OPS]: 'pending' } },
  { id: id(4), name: 'debian-12', owner: OPS, visibility: 'private' },
  { id: id(5), name: 'debian-12', owner: TENANT, visibility: 'shared', members: { [OPS]: 'accepted' } }, // accepted: listed
  { id: id(6), name: 'ops-community', owner: OPS, visibility: 'community' }, // our own community image: listed
  { id: id(7), name: id(1), owner: TENANT, visibility: 'public' }, // named like the golden image's ID
  { id: id(8), name: 'tenant-only', owner: TENANT, visibility: 'community' },
  { id: id(9), name: id(99), owner: TENANT, visibility: 'public' }, // named like an ID no image has
  { id: id(10), name: 'twin', owner: OPS, visibility: 'public' },
  { id: id(11), name: 'twin', owner: OPS, visibility: 'private' },
  { id: id(12), name: 'tenant-private', owner: TENANT, visibility: 'private' },
];

const cases: { refs: string[]; admin?: boolean; images: string[]; unresolved: [string, string][] }[] = [
  { refs: ['ubuntu-24.04'], images: [id(1)], unresolved: [] },
  { refs: ['debian-12'], images: [], unresolved: [['debian-12', 'FERRY_IMAGE_AMBIGUOUS']] },
  { refs: ['ops-community'], images: [id(6)], unresolved: [] },
  { refs: ['tenant-only'], images: [], unresolved: [['tenant-only', 'FERRY_IMAGE_NOT_FOUND']] },
  { refs: [id(8)], images: [id(8)], unresolved: [] }, // an ID the operator wrote is that image, community or not
  { refs: [id(1)], images: [id(1)], unresolved: [] }, // an ID is never a name
  { refs: [id(1).toUpperCase()], images: [id(1)], unresolved: [] },
  { refs: [id(99)], images: [], unresolved: [[id(99), 'FERRY_IMAGE_NOT_FOUND']] },
  { refs: ['twin', 'nosuch', '3f1c2a9e-5b7d'], images: [],
    unresolved: [['twin', 'FERRY_IMAGE_AMBIGUOUS'], ['nosuch', 'FERRY_IMAGE_NOT_FOUND'], ['3f1c2a9e-5b7d', 'FERRY_INVALID_IMAGE_REF']] },
  { refs: ['ubuntu-24.04', id(1), 'ubuntu-24.04'], images: [id(1)], unresolved: [] },
  { refs: ['tenant-private'], images: [], unresolved: [['tenant-private', 'FERRY_IMAGE_NOT_FOUND']] },
  // an admin's default listing holds every project's images but still not others' community ones
  { refs: ['tenant-private', 'tenant-only', 'ubuntu-24.04'], admin: true, images: [id(12)],
    unresolved: [['tenant-only', 'FERRY_IMAGE_NOT_FOUND'], ['ubuntu-24.04', 'FERRY_IMAGE_AMBIGUOUS']] },
];

describe('named images: the listing gives what Glance gives one name at a time', () => {
  it.each(cases)('$refs (admin: $admin) → $images, unresolved $unresolved', async ({ refs, admin, images: expected, unresolved }) => {
    const options = { admin: admin === true };
    const perName = await selectImages(glanceSeenBy(images, OPS, options), { images: refs });
    const listed = selectFromListing({ images: refs }, listingSeenBy(images, OPS, options), OPS);
    expect(perName.images.map((image) => image.id)).toEqual(expected);
    expect(perName.unresolved.map((entry) => [entry.ref, entry.code])).toEqual(unresolved);
    // the same images, and the same refusals with the same messages
    expect(listed.images.map((image) => image.id)).toEqual(expected);
    expect(listed.unresolved).toEqual(perName.unresolved);
  });

  it('without the project (a plain token) no community image counts for a name; an ID still finds one', () => {
    const listing = listingSeenBy(images, OPS);
    expect(selectFromListing({ images: ['ops-community', id(8)] }, listing, undefined).images.map((image) => image.id)).toEqual([id(8)]);
  });
});

describe('a sync policy with budgets: a tenant\'s look-alike is neither wanted nor copied', () => {
  const policy = parseSyncPolicy(`version: 1
placements:
  - {name: golden, images: {names: [ubuntu-24.04, debian-12]}, stores: [site-b]}
stores:
  site-b: {budget: 250M, ceph_conf: /etc/ceph/site-b.conf}
`, 'edge.yaml');

  it('policyWants takes the golden image only; the ambiguous name is unresolved as sync without budgets reports it', async () => {
    const listing = listingSeenBy(images, OPS);
    expect([...(policyWants(policy, listing, OPS).get('site-b')?.keys() ?? [])]).toEqual([id(1)]);
    const perName = await selectImages(glanceSeenBy(images, OPS), policy.placements[0]!.selection);
    expect(unresolvedPolicyRefs(policy, listing, OPS)).toEqual(perName.unresolved.map((image) => ({ image, stores: ['site-b'] })));
  });

  it('without `visibility`, a tag or property selection leaves out other projects\' community images, not ours', () => {
    const tagged = listingSeenBy(images, OPS).map((image) => ({ ...image, tags: ['golden'] }));
    expect(selectFromListing({ tag: 'golden' }, tagged, OPS).images.map((image) => image.id))
      .toEqual([id(1), id(4), id(5), id(6), id(7), id(9), id(10), id(11)]);
  });
});
