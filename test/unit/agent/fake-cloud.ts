import type { Cloud } from '../../../src/cloud/cloud.js';
import { resolveConfig } from '../../../src/config/resolve-config.js';
import type { GlanceClient } from '../../../src/glance/glance-client.js';
import { FSID_B } from '../../helpers/image-body.js';
import { copyContext } from '../../helpers/scripted-glance.js';

/** Only what the agent's service and `ferry ensure` touch: the copy context over a scripted Glance, a token, the config. */
export function fakeCloud(glance: GlanceClient): Cloud {
  const config = resolveConfig({ flags: { store: 'site-b', fsid: FSID_B }, env: {}, cwd: '/', homeDir: '/nonexistent' });
  return { ...copyContext(glance, undefined, FSID_B), config, session: { token: () => Promise.resolve('t') },
    close: () => Promise.resolve() } as unknown as Cloud;
}
