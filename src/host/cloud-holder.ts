import type { Cloud } from '../cloud/cloud.js';
import { connectCloud, type ConnectOptions } from '../cloud/connect-cloud.js';
import type { FerryConfig } from '../config/ferry-config.js';
import type { Logger } from '../logging/logger.js';

/** Where a long-lived service takes its cloud from, per request. */
export interface CloudSource {
  acquire(): HeldCloud;
}

/** A connected cloud and the requests using it: SIGHUP swaps in a new one; the old one closes when its last request ends. */
export interface CloudHolder extends CloudSource {
  replace(config: FerryConfig): Promise<void>;
  close(): Promise<void>;
}

export interface HeldCloud {
  readonly cloud: Cloud;
  readonly config: FerryConfig;
  release(): void;
}

interface Generation {
  readonly cloud: Cloud;
  readonly config: FerryConfig;
  users: number;
  retired: boolean;
}

/** One generation per configuration: requests already running finish on the cloud they started on. */
export async function createCloudHolder(initial: FerryConfig, logger: Logger, connect: ConnectOptions = {}): Promise<CloudHolder> {
  const open = async (config: FerryConfig): Promise<Generation> => ({
    config, users: 0, retired: false, cloud: await connectCloud(config, logger, connect),
  });
  const closeIfIdle = (generation: Generation): void => {
    if (generation.retired && generation.users === 0) void generation.cloud.close();
  };
  let current = await open(initial);
  return {
    acquire() {
      const generation = current;
      generation.users += 1;
      let released = false;
      return {
        cloud: generation.cloud, config: generation.config,
        release: () => {
          if (released) return;
          released = true;
          generation.users -= 1;
          closeIfIdle(generation);
        },
      };
    },
    async replace(config) {
      const next = await open(config);
      const previous = current;
      current = next;
      previous.retired = true;
      closeIfIdle(previous);
    },
    async close() {
      current.retired = true;
      await current.cloud.close();
    },
  };
}

/** Run `work` on the current generation, releasing it after (also when `work` throws). */
export async function withHeldCloud<T>(clouds: CloudSource, work: (held: HeldCloud) => Promise<T> | T): Promise<T> {
  const held = clouds.acquire();
  try {
    return await work(held);
  } finally {
    held.release();
  }
}
