import { describe, expect, it } from 'vitest';
import { TOKEN_RENEW_AFTER_MS, tokenDue } from '../../../scripts/soak/tenant-token.js';

describe('a tenant\'s token in the soak', () => {
  it.each([
    { age: 0, due: false },
    { age: TOKEN_RENEW_AFTER_MS - 1, due: false },
    { age: TOKEN_RENEW_AFTER_MS, due: true },
    // seed 38's boots at 3607 s kept the set-up token: past Keystone's 3600 s
    { age: 3_607_000, due: true },
  ])('$age ms old: renewed $due', ({ age, due }) => {
    expect(tokenDue(1_000_000, 1_000_000 + age)).toBe(due);
  });

  it('renews well before Keystone\'s hour', () => {
    expect(TOKEN_RENEW_AFTER_MS).toBeLessThanOrEqual(3_600_000 / 2);
  });
});
