// Whose images a rule of ferry's applies to: the pin owners (whose images' own tag or property pins them), the remove
// owners (whose images' copies an eviction may remove), a usage rule's owners (whose images it counts). One rule for
// all three: the projects given (a flag, a policy key), else the project of ferry's own credential; `*` is every
// project. Pure.

/** Given as an owner, every project. */
export const EVERY_PROJECT = '*';

/** The owners: those given (a flag, a policy key), else the project of ferry's own credential, if known (else none). */
export function ownersOf(given: readonly string[] | undefined, credentialProject: string | undefined): ReadonlySet<string> {
  if (given !== undefined && given.length > 0) return new Set(given);
  return new Set(credentialProject === undefined ? [] : [credentialProject]);
}

/** Whether an image of `owner` (Glance's `owner`; null: none) is one of `owners`'. */
export function ownedBy(owner: string | null, owners: ReadonlySet<string>): boolean {
  return owners.has(EVERY_PROJECT) || (owner !== null && owners.has(owner));
}

/** The owners as a plan's text says them: `every project`, or their IDs. */
export function ownersText(owners: ReadonlySet<string>): string {
  if (owners.has(EVERY_PROJECT)) return 'every project';
  return owners.size === 0 ? 'none' : [...owners].join(', ');
}

/**
 * Whose copies an eviction may remove, as given: the `--remove-owner`s, else the policy's `remove_owners`, else none
 * given (undefined: ownersOf then takes the credential's project, when the eviction knows it).
 */
export function removeOwnersGiven(flagged: readonly string[], policy: { readonly removeOwners?: readonly string[] } | undefined): readonly string[] | undefined {
  return flagged.length > 0 ? flagged : policy?.removeOwners;
}
