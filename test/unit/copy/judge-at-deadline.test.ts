import { describe, expect, it } from 'vitest';
import { judgeStoreAtDeadline, type DeadlineFacts } from '../../../src/copy/judge-at-deadline.js';
import { parseImage } from '../../../src/glance/image.js';
import { imageBody, type ImageShape } from '../../helpers/image-body.js';

// Each store a job still had open when its deadline passed, judged by Glance's last answer.
const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const T2 = 'b9971fe3-0000-4000-8000-000000000002';
const ours = { stores: ['site-a', 'site-b'], taskId: T1 };
const facts = (shape: ImageShape, extra: Partial<DeadlineFacts> = {}): DeadlineFacts => ({
  image: parseImage(imageBody(shape)), pending: ours, importingSeen: new Set(['site-a', 'site-b']), broughtBy: new Map(), ...extra });

describe('judgeStoreAtDeadline', () => {
  it.each([
    { what: 'written by our import, the lock still held', store: 'site-a',
      facts: facts({ stores: ['central', 'site-a'], lock: T1, importing: ['site-b'] }), verdict: { kind: 'present', ours: true, taskId: T1 } },
    { what: 'our task not known yet: the lock holder names it', store: 'site-a',
      facts: facts({ stores: ['central', 'site-a'], lock: T1, importing: ['site-b'] }, { pending: { stores: ['site-a', 'site-b'], taskId: undefined } }),
      verdict: { kind: 'present', ours: true, taskId: T1 } },
    { what: 'still being written', store: 'site-b',
      facts: facts({ stores: ['central', 'site-a'], lock: T1, importing: ['site-b'] }), verdict: { kind: 'timeout', running: true } },
    { what: 'written by an import we joined', store: 'site-a',
      facts: facts({ stores: ['central', 'site-a'], lock: T2, importing: ['site-b'] }, { pending: undefined, broughtBy: new Map([['site-a', T2]]) }),
      verdict: { kind: 'present', ours: false, taskId: T2 } },
    { what: 'our request, another import holds the lock', store: 'site-a',
      facts: facts({ stores: ['central', 'site-a'], lock: T2, importing: [] }), verdict: { kind: 'present', ours: false, taskId: T2 } },
    { what: 'failed by this import (seen importing), the lock still held', store: 'site-b',
      facts: facts({ stores: ['central', 'site-a'], lock: T1, importing: [], failed: ['site-b'] }), verdict: { kind: 'failed', taskId: T1 } },
    { what: 'failed, the lock gone', store: 'site-b',
      facts: facts({ stores: ['central', 'site-a'], importing: [], failed: ['site-b'] }, { importingSeen: new Set() }),
      verdict: { kind: 'failed', taskId: T1 } },
    { what: 'an earlier attempt\'s failure, the flow not started for it', store: 'site-b',
      facts: facts({ stores: ['central'], lock: T1, importing: [], failed: ['site-b'] }, { importingSeen: new Set() }),
      verdict: { kind: 'timeout', running: true } },
    { what: 'in no list, no lock: Glance was not answering, or the import ended without it', store: 'site-b',
      facts: facts({ stores: ['central'], importing: [], failed: [] }), verdict: { kind: 'timeout', running: false } },
  ] as const)('judgeStoreAtDeadline: $what', ({ store, facts: given, verdict }) => {
    expect(judgeStoreAtDeadline(store, given)).toEqual(verdict);
  });
});
