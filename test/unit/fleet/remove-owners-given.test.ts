import { describe, expect, it } from 'vitest';
import { removeOwnersGiven } from '../../../src/fleet/project-owners.js';

// Whose copies `ferry evict` and `ferry status --usage` may count as removable, as given: --remove-owner over the
// policy's remove_owners, else none given (the eviction then takes the credential's project). A table; pure.

describe('removeOwnersGiven: --remove-owner, else the policy\'s remove_owners', () => {
  it.each([
    { why: 'the flags win over the policy', flagged: ['p-1', 'p-2'], policy: { removeOwners: ['p-9'] }, expected: ['p-1', 'p-2'] },
    { why: 'the flags, no policy', flagged: ['*'], policy: undefined, expected: ['*'] },
    { why: 'no flag: the policy\'s', flagged: [], policy: { removeOwners: ['p-9'] }, expected: ['p-9'] },
    { why: 'no flag, a policy without remove_owners: none given', flagged: [], policy: {}, expected: undefined },
    { why: 'neither: none given', flagged: [], policy: undefined, expected: undefined },
  ])('$why', ({ flagged, policy, expected }) => {
    expect(removeOwnersGiven(flagged, policy)).toEqual(expected);
  });
});
