import { describe, expect, it } from 'vitest';
import { chooseActingWaiter, type TokenWaiter } from '../../../src/copy/acting-token.js';
import { createActingTokens } from '../../../src/copy/acting-tokens.js';

const a: TokenWaiter = { id: 1, token: 'token-a' };
const b: TokenWaiter = { id: 2, token: 'token-b' };
const c: TokenWaiter = { id: 3, token: 'token-c' };

const cases: { name: string; current: number | undefined; live: readonly TokenWaiter[]; refused?: number[]; expected: TokenWaiter | undefined }[] = [
  { name: 'nobody waits: no token', current: undefined, live: [], expected: undefined },
  { name: 'nobody waits any more: not even the one in use', current: 1, live: [], expected: undefined },
  { name: 'the first caller: its own', current: undefined, live: [a], expected: a },
  { name: 'the one in use while its caller waits, though a longer-waiting one is there', current: 2, live: [a, b], expected: b },
  { name: 'its caller gone: the longest-waiting caller still there', current: 1, live: [c, b], expected: b },
  { name: 'none chosen yet: the longest-waiting', current: undefined, live: [c, a, b], expected: a },
  { name: 'an id nobody holds: the longest-waiting', current: 9, live: [b, c], expected: b },
  { name: 'the one in use refused by Glance: the longest-waiting other', current: 1, live: [a, b, c], refused: [1], expected: b },
  { name: 'refused tokens are never chosen again, also once not in use', current: 3, live: [a, b, c], refused: [1, 3], expected: b },
  { name: 'every waiter\'s token refused: nobody\'s', current: 2, live: [a, b], refused: [1, 2], expected: undefined },
  { name: 'a refused id of a caller gone does not matter', current: 1, live: [b], refused: [1], expected: b },
];

describe('chooseActingWaiter', () => {
  it.each(cases)('chooseActingWaiter: $name', ({ current, live, refused, expected }) => {
    expect(chooseActingWaiter(current, live, new Set(refused))).toEqual(expected);
  });
});

describe('createActingTokens', () => {
  it('createActingTokens: the first caller\'s token until it leaves, then the next caller\'s; nothing kept after the last', () => {
    const tokens = createActingTokens();
    const first = tokens.enter('image\u0000site-b', 'token-a');
    const second = tokens.enter('image\u0000site-b', 'token-b');
    expect(tokens.tokenFor('image\u0000site-b')).toBe('token-a');
    const third = tokens.enter('image\u0000site-b', 'token-c');
    expect(tokens.tokenFor('image\u0000site-b')).toBe('token-a');
    first.leave();
    expect(tokens.tokenFor('image\u0000site-b')).toBe('token-b');
    first.leave();
    expect(tokens.tokenFor('image\u0000site-b')).toBe('token-b');
    second.leave();
    third.leave();
    expect(tokens.size).toBe(0);
    expect(() => tokens.tokenFor('image\u0000site-b')).toThrow(expect.objectContaining({ code: 'FERRY_ABORTED' }) as Error);
  });

  /** Two callers of one copy, the first's token refused by Glance: the second's is the one acted with. */
  function firstOfTwoRefused(): { tokens: ReturnType<typeof createActingTokens>; key: string; first: { leave(): void }; second: { leave(): void } } {
    const tokens = createActingTokens();
    const key = 'image\u0000site-b';
    const first = tokens.enter(key, 'token-a');
    const second = tokens.enter(key, 'token-b');
    expect(tokens.tokenFor(key)).toBe('token-a');
    expect(tokens.refuse(key)).toBe(true);
    expect(tokens.tokenFor(key)).toBe('token-b');
    return { tokens, key, first, second };
  }

  it('createActingTokens: a token Glance refused is passed over for the next caller\'s; when none is left, refuse() says so', () => {
    const { tokens, key, first, second } = firstOfTwoRefused();
    expect(tokens.refuse(key)).toBe(false);
    // A caller arriving later brings a token not yet refused.
    const third = tokens.enter(key, 'token-c');
    expect(tokens.tokenFor(key)).toBe('token-c');
    for (const waiter of [first, second, third]) waiter.leave();
    expect(tokens.size).toBe(0);
    expect(tokens.refuse(key)).toBe(false);
  });

  it('createActingTokens: callers still waiting whose tokens were all refused → FERRY_AUTH_FAILED refused user, not "every caller has gone"', () => {
    const { tokens, key, first, second } = firstOfTwoRefused();
    second.leave();
    expect(() => tokens.tokenFor(key)).toThrow(expect.objectContaining({ code: 'FERRY_AUTH_FAILED', details: { refused: 'user' } }) as Error);
    first.leave();
    expect(() => tokens.tokenFor(key)).toThrow(expect.objectContaining({ code: 'FERRY_ABORTED' }) as Error);
  });

  it('createActingTokens: waits are apart (another image, another store)', () => {
    const tokens = createActingTokens();
    const one = tokens.enter('image-1\u0000site-b', 'token-a');
    const other = tokens.enter('image-2\u0000site-b', 'token-b');
    expect(tokens.tokenFor('image-1\u0000site-b')).toBe('token-a');
    expect(tokens.tokenFor('image-2\u0000site-b')).toBe('token-b');
    expect(tokens.size).toBe(2);
    one.leave();
    other.leave();
    expect(tokens.size).toBe(0);
  });
});
