import { describe, expect, it } from 'vitest';
import { evictJsonSchema } from '../../../src/contract/evict-document.js';
import { usageJsonSchema } from '../../../src/contract/usage-document.js';
import { runWith, SCRIPTED_PROJECT } from '../prewarm/cli-harness.js';
import { createWorld } from '../evict/evict-world.js';
import { usePoolListingStandIn } from '../evict/pool-listing-stand-in.js';
import { MIB } from '../evict/copy-facts-fixture.js';

/** The scripted cloud's wall clock (test/helpers/fake-clock.ts): ages count from it. */
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const TENANT = 'b0000000000000000000000000000002';

// Any project may tag its own image ferry-pin or set its property ferry_pin, and the agent copies whatever a boot asks
// for: an image's own pin counts only when a pin owner (--pin-owner, default the credential's project) owns it.

const tagged = () => createWorld([
  { id: 'a-idle', stores: ['site-a', 'site-b'], bytes: 100 * MIB },
  { id: 't-pinned', stores: ['site-a', 'site-b'], bytes: 200 * MIB, tags: ['ferry-pin'], owner: TENANT },
  { id: 'o-pinned', stores: ['site-a', 'site-b'], bytes: 300 * MIB, properties: { ferry_pin: 'site-b' } },
], NOW);

usePoolListingStandIn(tagged, 'ferry-evict-pins-');

const base = ['evict', '--store', 'site-b', '--ceph-conf', '/etc/ceph/site-b.conf', '--idle', '1h'];

describe('ferry evict: pins a tenant cannot set', () => {
  const copies = (stdout: string) => evictJsonSchema.parse(JSON.parse(stdout)).copies.map((copy) => [copy.image, copy.action, copy.reason, copy.detail]);

  it('a tenant\'s tag ferry-pin is ignored, and the plan says so; the credential\'s project\'s property pins, naming its owner', async () => {
    // --remove-owner '*': the tenant's copy may go too (an admin's account), so that its ignored pin is what decides.
    const run = await runWith([...base, '--dry-run', '--json', '--remove-owner', '*'], tagged().glance);
    expect(run.code, run.stderr).toBe(0);
    expect(copies(run.stdout)).toEqual([
      ['t-pinned', 'evict', 'idle', `last used 3 d ago (copied then); its tag ferry-pin ignored: owner ${TENANT} is not a pin owner`],
      ['a-idle', 'evict', 'idle', 'last used 3 d ago (copied then)'],
      ['o-pinned', 'keep', 'pinned', `pinned by its property ferry_pin=site-b (owner ${SCRIPTED_PROJECT}, a pin owner)`]]);
  });

  it('by default only the credential\'s project\'s copies may go: the tenant\'s stays not-owned (its ignored pin said too); --remove-owner names the others', async () => {
    const run = await runWith([...base, '--dry-run', '--json'], tagged().glance);
    expect(run.code, run.stderr).toBe(0);
    expect(copies(run.stdout)).toEqual([
      ['a-idle', 'evict', 'idle', 'last used 3 d ago (copied then)'],
      ['o-pinned', 'keep', 'pinned', `pinned by its property ferry_pin=site-b (owner ${SCRIPTED_PROJECT}, a pin owner)`],
      ['t-pinned', 'keep', 'not-owned', `owner ${TENANT} is not a remove owner (${SCRIPTED_PROJECT}): ferry's account may not remove its copies; `
        + `its tag ferry-pin ignored: owner ${TENANT} is not a pin owner`]]);
    const text = (await runWith([...base, '--dry-run', '--budget', '1M'], tagged().glance)).stdout;
    expect(text).toContain('kept: 1 pinned (300 MiB), 1 another project\'s (ferry may not remove it) (200 MiB)');
    expect(text).toContain('200 MiB of what stays is other projects\' copies ferry\'s account may not remove: --remove-owner PROJECT');
    const named = await runWith([...base, '--dry-run', '--json', '--remove-owner', TENANT], tagged().glance);
    expect(copies(named.stdout).map(([image, action, reason]) => [image, action, reason])).toEqual([
      ['t-pinned', 'evict', 'idle'], ['o-pinned', 'keep', 'pinned'], ['a-idle', 'keep', 'not-owned']]);
  });

  it('--pin-owner names the projects whose pins count (and only those)', async () => {
    const run = await runWith([...base, '--dry-run', '--json', '--pin-owner', TENANT], tagged().glance);
    expect(copies(run.stdout).map(([image, action, reason]) => [image, action, reason])).toEqual([
      ['o-pinned', 'evict', 'idle'], ['a-idle', 'evict', 'idle'], ['t-pinned', 'keep', 'pinned']]);
  });

  it.each([
    { argv: ['--pin-owner', 'a b'], code: 2, message: '--pin-owner must be one project ID, got \'a b\'' },
    { argv: ['--remove-owner', 'a,b'], code: 2, message: '--remove-owner must be one project ID, got \'a,b\'' },
    { argv: ['--pin', 'img-nosuch'], code: 20, message: '--pin img-nosuch: Glance has no image with ID or name \'img-nosuch\' visible to this project' },
  ])('$argv → exit $code, nothing fenced', async ({ argv, code, message }) => {
    const w = tagged();
    const run = await runWith([...base, ...argv], w.glance);
    expect(run.code).toBe(code);
    expect(run.stderr).toContain(message);
    expect(w.calls.filter((call) => !call.startsWith('GET'))).toEqual([]);
  });
});

describe('ferry status --usage: pins a tenant cannot set', () => {
  const usage = ['status', '--usage', '--store', 'site-b', '--ceph-conf', '/etc/ceph/site-b.conf'];

  it('a tenant\'s tag ferry-pin that does not count is shown (JSON pin_ignored, the rows, a note under the text), as evict\'s plan says it; --pin-owner makes it count', async () => {
    const ignored = `its tag ferry-pin ignored: owner ${TENANT} is not a pin owner`;
    const json = usageJsonSchema.parse(JSON.parse((await runWith([...usage, '--idle', '1h', '--json'], tagged().glance)).stdout));
    expect(json.copies.map((copy) => [copy.image, copy.pinned, copy.pin_ignored])).toEqual([
      ['a-idle', null, null],
      ['t-pinned', null, ignored],
      ['o-pinned', `pinned by its property ferry_pin=site-b (owner ${SCRIPTED_PROJECT}, a pin owner)`, null]]);
    // The tenant's copy is not the credential's project's to remove: counted in kept, not in what could go.
    expect(json.stores[0]?.evictable_bytes).toBe(100 * MIB);
    expect(json.stores[0]?.kept).toMatchObject({ 'not-owned': { copies: 1, bytes: 200 * MIB } });
    expect(json.copies.map((copy) => [copy.image, copy.owner, copy.not_owned])).toEqual([['a-idle', SCRIPTED_PROJECT, null],
      ['t-pinned', TENANT, `owner ${TENANT} is not a remove owner (${SCRIPTED_PROJECT}): ferry's account may not remove its copies`],
      ['o-pinned', SCRIPTED_PROJECT, null]]);
    const all = usageJsonSchema.parse(JSON.parse((await runWith([...usage, '--idle', '1h', '--remove-owner', '*', '--json'], tagged().glance)).stdout));
    expect(all.stores[0]?.evictable_bytes).toBe(300 * MIB);
    expect(all.copies.map((copy) => copy.not_owned)).toEqual([null, null, null]);
    const text = (await runWith([...usage, '--idle', '1h'], tagged().glance)).stdout;
    expect(text).toContain('pins that do not count (only a pin owner\'s image pins itself: --pin-owner PROJECT, or the policy\'s pin_owners:):\n'
      + `  img-t-pinned t-pinned in site-b: ${ignored}`);
    const rows = (await runWith([...usage, '--idle', '1h', '-f', 'csv', '-c', 'image', '-c', 'pin_ignored'], tagged().glance)).stdout;
    expect(rows).toBe(`Image,Pin Ignored\na-idle,\nt-pinned,${ignored}\no-pinned,\n`);
    const owned = usageJsonSchema.parse(JSON.parse((await runWith([...usage, '--idle', '1h', '--pin-owner', TENANT, '--json'], tagged().glance)).stdout));
    expect(owned.copies.map((copy) => [copy.image, copy.pinned, copy.pin_ignored])).toEqual([
      ['a-idle', null, null],
      ['t-pinned', `pinned by its tag ferry-pin (owner ${TENANT}, a pin owner)`, null],
      ['o-pinned', null, `its property ferry_pin=site-b ignored: owner ${SCRIPTED_PROJECT} is not a pin owner`]]);
  });
});
