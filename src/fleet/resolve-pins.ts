import { FerryError } from '../errors/ferry-error.js';
import type { GlanceImage } from '../glance/image.js';
import type { PinSet } from './copy-pins.js';
import { policyWants } from './policy-wants.js';
import { ownersOf } from './project-owners.js';
import { indexListing, resolveListedRefs } from './resolve-listed-refs.js';
import type { SyncPolicy } from './sync-policy.js';

// What pins a copy for `ferry evict` and `ferry status --usage`, as given (--pin, a --policy's placements, --pin-owner)
// and resolved against the listing read once (docs/evict.md, "Pins"). The CLI hands these over as data.

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
export function resolvePins(input: PinInputs): (images: readonly GlanceImage[]) => (store: string) => PinSet {
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
