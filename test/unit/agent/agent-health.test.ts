import { describe, expect, it } from 'vitest';
import type { Cloud } from '../../../src/cloud/cloud.js';
import type { ResolvedLocalCluster } from '../../../src/rbd/resolve-local-cluster.js';
import { FSID_B } from '../../helpers/image-body.js';
import { scriptedGlance } from '../../helpers/scripted-glance.js';
import { send } from './agent-http.js';
import { cloudAgentHarness } from './cloud-agent-harness.js';
import { fakeCloud } from './fake-cloud.js';

const agent = cloudAgentHarness();

/** A cloud whose Glance answers the stores list and whose local cluster resolved as given. */
function cloudWith(cluster: ResolvedLocalCluster): Cloud {
  const glance = { ...scriptedGlance({ images: [{ stores: ['site-b'] }] }),
    getStoresInfo: () => Promise.resolve({ stores: [{ id: 'site-b', description: undefined, isDefault: true, readOnly: false, type: undefined, properties: {} }] }) };
  return { ...fakeCloud(glance as never), localCluster: () => Promise.resolve(cluster) };
}

describe('agent: /healthz names where the fsid came from', () => {
  it('agent /healthz: an fsid only from ceph.conf (the cluster could not be asked) is ok, with source ceph-conf and the warning', async () => {
    const warning = `could not ask the cluster for its fsid (keyring not readable); using fsid ${FSID_B} from [global] of /etc/ceph/ceph.conf, which the cluster has not confirmed`;
    await agent.start(cloudWith({ fsid: FSID_B, source: 'ceph-conf', confFile: '/etc/ceph/ceph.conf', user: 'nova', warnings: [warning] }));
    const answer = await send(agent.socket(), 'GET', '/healthz');
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ ok: true, checks: { fsid: { ok: true, fsid: FSID_B, source: 'ceph-conf', warnings: [warning] } } });
  });

  it('agent /healthz: an fsid the cluster confirmed → source cluster, no warnings field', async () => {
    await agent.start(cloudWith({ fsid: FSID_B, source: 'cluster', confFile: '/etc/ceph/ceph.conf', user: 'nova', warnings: [] }));
    const answer = await send(agent.socket(), 'GET', '/healthz');
    expect(answer.status).toBe(200);
    const fsid = (answer.json() as { checks: { fsid: Record<string, unknown> } }).checks.fsid;
    expect(fsid).toEqual({ ok: true, fsid: FSID_B, source: 'cluster' });
  });
});
