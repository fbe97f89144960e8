// Tenants' kinds of image as nova boots them (tenant-boot.test.ts, the soak): an image shared with another project, and
// an instance snapshot as nova's RBD driver makes one. Plain requests and rbd, independent of the code under test.
import { randomBytes } from 'node:crypto';
import { cephAll, CEPH_MS, devcloud, type CephCommand } from './devcloud.js';
import { glanceRequest } from './glance-admin.js';

/** Share `id` (its owner's token) with project `member`, and have the member accept it (its token) unless `pending`. */
export async function shareImage(id: string, member: string, tokens: { owner: string; member: string }, status: 'accepted' | 'pending'): Promise<void> {
  const added = await glanceRequest(tokens.owner, 'POST', `/v2/images/${id}/members`, { member });
  if (added.status !== 200) throw new Error(`add member ${member} to ${id}: ${added.status} ${JSON.stringify(added.body)}`);
  if (status === 'pending') return;
  const accepted = await glanceRequest(tokens.member, 'PUT', `/v2/images/${id}/members/${member}`, { status: 'accepted' });
  if (accepted.status !== 200) throw new Error(`accept ${id} as ${member}: ${accepted.status} ${JSON.stringify(accepted.body)}`);
}

/** instanceSnapshot()'s programs: the instance's disk with its snapshot, then the image's clone of it (one rbd program each). */
export const INSTANCE_SNAPSHOT_MS = 2 * CEPH_MS;
/**
 * An instance snapshot as nova's RBD driver makes one (direct_snapshot): an instance's disk in `site`'s vms pool is
 * snapshotted, cloned into the images pool under the new image's id, flattened, given its protected `snap`, and
 * registered by the tenant's own token as the location of a private image it created. Returns the image's id and the
 * disk (vms/DISK, snapshot nova-snapshot protected) for the caller to remove (removeSnapshotDisk).
 */
export async function instanceSnapshot(name: string, token: string, site: 'site-a' | 'site-b' = 'site-a'): Promise<{ id: string; disk: string }> {
  const disk = `it-tenant-disk-${randomBytes(4).toString('hex')}`;
  /** The rbd commands in one program (cephAll), the first that failed thrown. */
  const run = (...commands: (readonly string[])[]): void => {
    const results = cephAll(site, commands.map((args): CephCommand => ['rbd', ...args]));
    const failed = results.findIndex((result) => result.code !== 0);
    if (failed >= 0) throw new Error(`rbd ${commands[failed]?.join(' ') ?? ''}: ${results[failed]?.stderr ?? ''}`);
  };
  run(['create', '--size', '8M', `vms/${disk}`], ['snap', 'create', `vms/${disk}@nova-snapshot`], ['snap', 'protect', `vms/${disk}@nova-snapshot`]);
  const made = await glanceRequest(token, 'POST', '/v2/images', { name, disk_format: 'raw', container_format: 'bare', visibility: 'private' });
  if (made.status !== 201) throw new Error(`create image ${name}: ${made.status} ${JSON.stringify(made.body)}`);
  const { id } = made.body as { id: string };
  run(['clone', `vms/${disk}@nova-snapshot`, `images/${id}`], ['flatten', '--no-progress', `images/${id}`], ['snap', 'create', `images/${id}@snap`],
    ['snap', 'protect', `images/${id}@snap`]);
  const fsid = devcloud().ceph[site].fsid;
  const located = await glanceRequest(token, 'PATCH', `/v2/images/${id}`,
    [{ op: 'add', path: '/locations/-', value: { url: `rbd://${fsid}/images/${id}/snap`, metadata: { store: site } } }]);
  const body = located.body as { status?: string; stores?: string };
  if (located.status !== 200 || body.status !== 'active' || body.stores !== site) {
    throw new Error(`register the snapshot's location: ${located.status} ${JSON.stringify(located.body)}`);
  }
  return { id, disk };
}

/** Remove an instance snapshot's disk (best effort: after its image is deleted). */
export const removeSnapshotDisk = (disk: string, site: 'site-a' | 'site-b' = 'site-a'): void => { removeSnapshotDisks([disk], site); };
/** Remove instance snapshots' disks (best effort: after their images are deleted), in one program (CEPH_MS). */
export function removeSnapshotDisks(disks: readonly string[], site: 'site-a' | 'site-b' = 'site-a'): void {
  cephAll(site, disks.flatMap((disk): CephCommand[] => [['rbd', 'snap', 'unprotect', `vms/${disk}@nova-snapshot`], ['rbd', 'snap', 'purge', `vms/${disk}`],
    ['rbd', 'rm', '--no-progress', `vms/${disk}`]]));
}
