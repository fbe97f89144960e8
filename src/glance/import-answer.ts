/**
 * What Glance's answer to `POST /v2/images/{id}/import` (copy-image) means, from its status and message
 * (reference/glance-multistore.md §6.3). Pure: the client turns `refused` kinds into coded errors.
 */
export type ImportAnswer =
  | { readonly kind: 'accepted' }
  /** 400: a requested store already holds the image; nothing started. Often a race with a copy that just ended. */
  | { readonly kind: 'already-present'; readonly store: string | undefined }
  /**
   * 409: the image's import lock is held: "Image has active task" or the race loser's "New operation …". Also 403 "You
   * do not own this image" (`deadLock`): Glance 25 busted an expired lock for us and took it for a new task, then
   * failed to clean the old task's progress with the caller's rights (only the image's owner or an admin may write the
   * image: ferry's own role is neither) and never stored that task. The lock now names a task that does not exist,
   * which the next import busts at once, without that clean-up.
   */
  | { readonly kind: 'busy'; readonly message: string; readonly deadLock?: true }
  | { readonly kind: 'unknown-store'; readonly store: string | undefined; readonly message: string }
  | { readonly kind: 'not-active'; readonly message: string }
  | { readonly kind: 'not-found'; readonly message: string }
  | { readonly kind: 'forbidden'; readonly message: string }
  | { readonly kind: 'other'; readonly status: number; readonly message: string };

export function classifyImportAnswer(status: number, message: string | undefined): ImportAnswer {
  const text = message ?? '';
  if (status === 202) return { kind: 'accepted' };
  if (status === 400) {
    const present = /already present at store '([^']*)'/i.exec(text);
    if (present) return { kind: 'already-present', store: present[1] };
  }
  if (status === 409) {
    if (/has active task/i.test(text) || /not permitted as prior operation is still in progress/i.test(text)) {
      return { kind: 'busy', message: text };
    }
    const store = /store for identifier (\S+) not found/i.exec(text);
    if (store) return { kind: 'unknown-store', store: store[1], message: text };
    if (/only images with status active/i.test(text)) return { kind: 'not-active', message: text };
  }
  if (status === 404) return { kind: 'not-found', message: text };
  if (status === 403 && /do not own this image/i.test(text)) return { kind: 'busy', message: text, deadLock: true };
  if (status === 403) return { kind: 'forbidden', message: text };
  return { kind: 'other', status, message: text };
}
