import { FerryError } from '../../errors/ferry-error.js';
import { PIN_PROPERTY, PIN_TAG } from '../../fleet/copy-pins.js';
import type { CommandContext, OptionSpec } from '../command-spec.js';
import { flagList } from './evict-flags.js';

// The flags that say what pins a copy for `ferry evict` and `ferry status --usage` (--pin-owner) and whose copies may go
// (--remove-owner), read into data: fleet/resolve-pins.ts resolves the pins (docs/evict.md, "Pins").

export const PIN_OWNER_FLAG: OptionSpec = { name: 'pin-owner', value: 'PROJECT', repeatable: true,
  description: `a project ID whose images' own tag ${PIN_TAG} or property ${PIN_PROPERTY} pin them; other projects' are ignored `
    + '(* for every project; default: the --policy\'s pin_owners:, else the project of ferry\'s credential)' };

export const REMOVE_OWNER_FLAG: OptionSpec = { name: 'remove-owner', value: 'PROJECT', repeatable: true,
  description: 'a project ID whose images\' copies may be removed; other projects\' stay (not-owned) and are never sent a DELETE '
    + '(* for every project, where the account may: admin; default: the --policy\'s remove_owners:, else the project of ferry\'s credential)' };

/** The values of an owner flag (--pin-owner, --remove-owner), checked before any request. */
export function ownerFlags(ctx: Pick<CommandContext, 'flags'>, flag: 'pin-owner' | 'remove-owner'): readonly string[] {
  const owners = flagList(ctx.flags[flag]).map((owner) => owner.trim());
  const bad = owners.find((owner) => owner === '' || /[\s,]/.test(owner));
  if (bad !== undefined) {
    throw new FerryError('FERRY_INVALID_OPTION', `--${flag} must be one project ID, got '${bad}'`,
      `Give each project as its ID, as Glance shows an image's owner (openstack project show NAME -f value -c id), or *; repeat --${flag} for several.`,
      { option: flag });
  }
  return owners;
}
