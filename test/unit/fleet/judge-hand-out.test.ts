import { describe, expect, it } from 'vitest';
import { fenceValue } from '../../../src/fleet/copy-fence.js';
import { judgeHandOut } from '../../../src/fleet/judge-hand-out.js';
import type { CopyLook } from '../../../src/rbd/copy-look.js';

// Whether the agent hands a copy to nova now, or waits (docs/evict.md, "Boot safety"). Pure.

const NOW = Date.UTC(2026, 10, 27, 4, 0, 0);
const MARGIN = 10_000;
const copy = (meta: Record<string, string> = {}, snapshot: 'protected' | 'unprotected' | 'missing' = 'protected'): CopyLook =>
  ({ kind: 'copy', name: 'img', snapshot, meta });
const fenced = (recheckAtMs: number): Record<string, string> => ({ 'ferry.evicting': fenceValue({ run: 'r1', recheckAtMs, by: 'ferry evict pid 7' }) });

describe('judgeHandOut', () => {
  it.each([
    { what: 'a copy without a fence', look: copy(), verdict: 'hand-out' },
    { what: 'a copy that cannot be read (ferry cannot tell: what nova would clone anyway)', look: { kind: 'unreadable', name: 'img', message: 'EPERM', errno: 1 } as CopyLook, verdict: 'hand-out' },
    { what: 'no look at all', look: undefined, verdict: 'hand-out' },
    { what: 'gone from the pool while Glance still lists it (a removal under way)', look: { kind: 'absent', name: 'img' } as CopyLook, verdict: 'wait' },
    { what: 'its snapshot unprotected (Glance\'s driver on its way to remove it)', look: copy({}, 'unprotected'), verdict: 'wait' },
    { what: 'its snapshot gone', look: copy({}, 'missing'), verdict: 'wait' },
    { what: 'fenced, the last look 30 s ahead: a clone now lands before it', look: copy(fenced(NOW + 30_000)), verdict: 'hand-out' },
    { what: 'fenced, the last look exactly the margin ahead', look: copy(fenced(NOW + MARGIN)), verdict: 'hand-out' },
    { what: 'fenced, the last look 9 s ahead: inside the margin', look: copy(fenced(NOW + 9_000)), verdict: 'wait' },
    { what: 'fenced, the last look past (the removal may be running)', look: copy(fenced(NOW - 5_000)), verdict: 'wait' },
    { what: 'a fence of a run gone for good (past its hold)', look: copy(fenced(NOW - 121_000)), verdict: 'hand-out' },
    { what: 'a mark not in ferry\'s format (someone\'s, not an eviction ferry runs)', look: copy({ 'ferry.evicting': 'by hand' }), verdict: 'hand-out' },
  ])('$what → $verdict', ({ look, verdict }) => {
    expect(judgeHandOut(look, NOW, MARGIN).kind).toBe(verdict);
  });
});
