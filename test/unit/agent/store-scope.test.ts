import { describe, expect, it } from 'vitest';
import { decideStore, judgeStoreScope, servedStores, storeRefusal, type StoreDecision, type StoreScope } from '../../../src/agent/store-scope.js';

const own = (defaultStore: string | undefined, allowList?: readonly string[]): StoreScope => ({ defaultStore, allowList });

describe('decideStore', () => {
  it.each<{ case: string; requested: string | undefined; scope: StoreScope; expected: StoreDecision }>([
    { case: 'its own store, asked by name', requested: 'site-b', scope: own('site-b'), expected: { kind: 'serve', store: 'site-b' } },
    { case: 'no store in the request: its own', requested: undefined, scope: own('site-b'), expected: { kind: 'serve', store: 'site-b' } },
    { case: 'another site\'s store', requested: 'site-a', scope: own('site-b'), expected: { kind: 'not-allowed', store: 'site-a', served: ['site-b'] } },
    { case: 'a store of the same cluster, not listed', requested: 'site-c', scope: own('site-b'),
      expected: { kind: 'not-allowed', store: 'site-c', served: ['site-b'] } },
    { case: 'a store on the allow-list', requested: 'site-c', scope: own('site-b', ['site-b', 'site-c']), expected: { kind: 'serve', store: 'site-c' } },
    { case: 'the allow-list replaces its own store', requested: undefined, scope: own('site-b', ['site-c']),
      expected: { kind: 'not-allowed', store: 'site-b', served: ['site-c'] } },
    { case: 'an allow-list without an own store: a request must name one', requested: undefined, scope: own(undefined, ['site-c']), expected: { kind: 'no-store' } },
    { case: 'nothing configured, a store asked', requested: 'site-a', scope: own(undefined), expected: { kind: 'not-allowed', store: 'site-a', served: [] } },
    { case: 'nothing configured, nothing asked', requested: undefined, scope: own(undefined), expected: { kind: 'no-store' } },
    { case: 'names are exact (no case folding)', requested: 'Site-B', scope: own('site-b'), expected: { kind: 'not-allowed', store: 'Site-B', served: ['site-b'] } },
  ])('decideStore: $case', ({ requested, scope, expected }) => {
    expect(decideStore(requested, scope)).toEqual(expected);
  });

  it('servedStores: the allow-list when given, else the own store, else none', () => {
    expect(servedStores(own('site-b', ['site-c', 'site-d']))).toEqual(['site-c', 'site-d']);
    expect(servedStores(own('site-b'))).toEqual(['site-b']);
    expect(servedStores(own(undefined))).toEqual([]);
  });
});

describe('storeRefusal', () => {
  it('storeRefusal: not allowed → FERRY_STORE_NOT_ALLOWED naming the store, the stores served and the fixes', () => {
    const error = storeRefusal({ kind: 'not-allowed', store: 'site-a', served: ['site-b'] });
    expect(error).toMatchObject({ code: 'FERRY_STORE_NOT_ALLOWED', message: "store 'site-a' is not served here: this ferry agent serves store 'site-b' only",
      details: { store: 'site-a', served: ['site-b'] } });
    expect(error.hint).toMatch(/images_rbd_glance_store_name.*--allow-store.*--no-agent/);
  });

  it('storeRefusal: an agent that serves nothing says so', () => {
    expect(storeRefusal({ kind: 'not-allowed', store: 'site-a', served: [] }).message).toBe("store 'site-a' is not served here: this ferry agent serves no store");
  });

  it('storeRefusal: no store anywhere → FERRY_INVALID_OPTION naming --store and nova.conf', () => {
    expect(storeRefusal({ kind: 'no-store' })).toMatchObject({ code: 'FERRY_INVALID_OPTION', hint: expect.stringContaining('images_rbd_glance_store_name') as unknown });
  });
});

describe('judgeStoreScope', () => {
  it.each([
    { case: 'its own store', scope: own('site-b'), ok: true, says: undefined },
    { case: 'an allow-list holding its own store', scope: own('site-b', ['site-b', 'site-c']), ok: true, says: undefined },
    { case: 'an allow-list without an own store', scope: own(undefined, ['site-c']), ok: true, says: undefined },
    { case: 'no store at all', scope: own(undefined), ok: false, says: /serves no store/ },
    { case: 'its own store off the allow-list', scope: own('site-b', ['site-c']), ok: false, says: /own store 'site-b' .* is not in --allow-store site-c/ },
  ])('judgeStoreScope: $case → ok $ok', ({ scope, ok, says }) => {
    const check = judgeStoreScope(scope);
    expect(check.ok).toBe(ok);
    if (says !== undefined) expect(check).toMatchObject({ code: 'FERRY_INVALID_OPTION', message: expect.stringMatching(says) as unknown });
  });
});
