import type { CopyLook } from '../rbd/copy-look.js';
import { fenceOf, judgeFencedCopy } from './copy-fence.js';

export type HandOutVerdict = { readonly kind: 'hand-out' } | { readonly kind: 'wait'; readonly why: string };

/**
 * Pure: whether a copy ferry is about to hand out (the agent's answer to nova) can be cloned before an eviction takes
 * it. Gone, or its snapshot on its way out: wait and ensure again (the copy is made anew once Glance drops the
 * location). Fenced with its last look closer than `marginMs`: wait for the run to end. A copy that cannot be read is
 * handed out: ferry cannot tell, and nova's clone is what it would have tried without ferry.
 */
export function judgeHandOut(look: CopyLook | undefined, wallNowMs: number, marginMs: number): HandOutVerdict {
  if (look === undefined || look.kind === 'unreadable') return { kind: 'hand-out' };
  if (look.kind === 'absent') return { kind: 'wait', why: 'the copy is gone from the pool (evicted): waiting for Glance to drop its location' };
  if (look.snapshot !== 'protected') return { kind: 'wait', why: `its snapshot is ${look.snapshot === 'missing' ? 'gone' : 'unprotected'}: the copy is being removed` };
  const fence = fenceOf(look.meta);
  if (judgeFencedCopy(fence, wallNowMs, marginMs) === 'wait') {
    return { kind: 'wait', why: `an eviction (${fence?.by ?? '?'}) may remove it before a clone: waiting for that run to end` };
  }
  return { kind: 'hand-out' };
}
