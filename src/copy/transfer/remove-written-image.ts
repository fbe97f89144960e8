import type { CephCliOptions } from '../../rbd/ceph-cli.js';
import { removeRbdImage, type RbdImageRef } from '../../rbd/rbd-image-commands.js';
import { SNAPSHOT, type StoreCopyEnvironment } from './store-copy-plan.js';

/**
 * Remove an image this run wrote (or a leftover it judged), best effort: without the job's signal, so an interrupted
 * job still cleans up, within the CLI's own timeout; a failure is logged and left to the next run.
 */
export async function removeWrittenImage(env: Pick<StoreCopyEnvironment, 'logger'>, cli: CephCliOptions, ref: RbdImageRef): Promise<void> {
  const { signal: _signal, ...unsignalled } = cli;
  await removeRbdImage({ ...unsignalled, timeoutMs: 20_000 }, ref, SNAPSHOT).catch((error: unknown) => {
    env.logger.warn({ rbdImage: `${ref.pool}/${ref.image}`, error: (error as Error).message }, 'could not remove what the direct transfer wrote; the next run removes it');
  });
}
