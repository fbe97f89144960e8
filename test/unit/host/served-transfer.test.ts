import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve-config.js';
import { servedTransfer } from '../../../src/host/served-transfer.js';

type Flags = Readonly<Record<string, string | string[] | undefined>>;
const config = (flags: Flags) => resolveConfig({ flags: { store: 'site-b', ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) as Record<string, string | string[]> }, env: {}, cwd: '/', homeDir: '/nonexistent' });

describe('servedTransfer', () => {
  it.each<{ case: string; flags: Flags; transfer: string; ok: boolean }>([
    { case: 'the default (glance)', flags: {}, transfer: 'glance', ok: true },
    { case: 'auto without sources (falls back to Glance by itself)', flags: { transfer: 'auto' }, transfer: 'auto', ok: true },
    { case: 'rbd with sources and the local ceph.conf', flags: { transfer: 'rbd', 'source-ceph-conf': ['site-a=/etc/ceph/a.conf'], 'ceph-conf': '/etc/ceph/b.conf' },
      transfer: 'rbd', ok: true },
  ])('servedTransfer: $case → $transfer, check ok', ({ flags, transfer, ok }) => {
    expect(servedTransfer(config(flags))).toEqual({ transfer, check: { ok } });
  });

  it.each<{ case: string; flags: Flags; names: string[]; not: string | undefined }>([
    { case: 'no --source-ceph-conf', flags: { transfer: 'rbd', 'ceph-conf': '/etc/ceph/b.conf' }, names: ['--source-ceph-conf'], not: '--ceph-conf FILE' },
    { case: 'no local ceph.conf', flags: { transfer: 'rbd', 'source-ceph-conf': ['site-a=/etc/ceph/a.conf'] }, names: ['--ceph-conf FILE'], not: '--source-ceph-conf' },
    { case: 'neither', flags: { transfer: 'rbd' }, names: ['--source-ceph-conf', '--ceph-conf FILE'], not: undefined },
  ])('servedTransfer: rbd with $case → Glance\'s copy, the check failing FERRY_INVALID_OPTION naming what is missing', ({ flags, names, not }) => {
    const served = servedTransfer(config(flags));
    expect(served.transfer).toBe('glance');
    expect(served.check).toMatchObject({ ok: false, code: 'FERRY_INVALID_OPTION' });
    const message = (served.check as { message: string }).message;
    expect(message).toMatch(/^transfer rbd \(from --transfer\) is not configured: it needs .*Until then the agent copies through Glance/);
    for (const name of names) expect(message).toContain(name);
    if (not !== undefined) expect(message).not.toContain(not);
  });
});
