import { FerryError } from '../../errors/ferry-error.js';
import { PIN_PROPERTY, PIN_TAG, type PinSet } from '../../evict/copy-pins.js';
import { ownersOf } from '../../evict/project-owners.js';
import type { GlanceImage } from '../../glance/image.js';
import { indexListing, resolveListedRefs } from '../../prewarm/resolve-listed-refs.js';
import { policyWants } from '../../sync/policy-wants.js';
import type { SyncPolicy } from '../../sync/sync-policy.js';
import type { CommandContext, OptionSpec } from '../command-spec.js';
import { flagList } from './evict-flags.js';

// What pins a copy for `ferry evict` and `ferry status --usage`: --pin, a --policy's placements, and the images' own
// tag or property when a pin owner owns the image (docs/evict.md, "Pins").

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

export interface PinInputs {
  /** --pin: image IDs or names. */
  readonly refs: readonly string[];
  readonly policy: SyncPolicy | undefined;
  /** --pin-owner. */
  readonly owners: readonly string[];
  /** The project of ferry's credential (Cloud.projectId). */
  readonly project: string | undefined;
}

/**
 * The pins per store, from the listing read once. --pin names resolve as everywhere else (an ID as an ID, a name
 * among what Glance's default listing shows, never two images): a name that matches no image, or two, is refused
 * before anything is fenced, since a pin that protects nothing, or a stranger's look-alike, is not what was asked.
 */
export function pinsFromInputs(input: PinInputs): (images: readonly GlanceImage[]) => (store: string) => PinSet {
  return (images) => {
    const resolved = resolveListedRefs(input.refs, indexListing(images, input.project));
    const [unresolved] = resolved.unresolved;
    if (unresolved !== undefined) {
      throw new FerryError(unresolved.code, `--pin ${unresolved.ref}: ${unresolved.reason}`, unresolved.code === 'FERRY_IMAGE_AMBIGUOUS'
        ? `Pin it by ID (openstack image list --name '${unresolved.ref}').` : 'Check the ID or name (openstack image list).', { option: 'pin', imageRef: unresolved.ref });
    }
    const refs = new Set(resolved.images.map((image) => image.id));
    const wants = input.policy === undefined ? undefined : policyWants(input.policy, images, input.project);
    const owners = ownersOf(input.owners.length > 0 ? input.owners : input.policy?.pinOwners, input.project);
    return (store) => ({ refs, wanted: wants?.get(store) ?? new Map<string, readonly string[]>(), owners });
  };
}
