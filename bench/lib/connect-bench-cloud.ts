import { connectCloud } from '../../src/cloud/connect-cloud.js';
import type { Cloud } from '../../src/cloud/cloud.js';
import { resolveConfig } from '../../src/config/resolve-config.js';
import type { HttpTransport } from '../../src/openstack/http-transport.js';
import { REPO_ROOT, type BenchDevcloud } from './devcloud-facts.js';

/**
 * A Cloud as `ferry --os-cloud devcloud-admin --fsid <site-b>` would build it. The fsid is given so that no ceph CLI
 * runs: the benchmarks measure Glance round trips, not a process spawn.
 */
export function connectBenchCloud(devcloud: BenchDevcloud, transport: HttpTransport, fsid = devcloud.ceph['site-b'].fsid): Promise<Cloud> {
  const config = resolveConfig({
    flags: { fsid },
    env: { OS_CLOUD: 'devcloud-admin', OS_CLIENT_CONFIG_FILE: devcloud.cloudsYaml },
    cwd: REPO_ROOT,
    homeDir: '/nonexistent',
  });
  return connectCloud(config, undefined, { transport });
}
