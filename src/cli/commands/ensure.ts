import { z } from 'zod';
import { ensure, ensureOnHost } from '../../copy/ensure.js';
import type { EnsureOutcome } from '../../copy/ensure-result.js';
import { resolveBackendConfig } from '../../backend/resolve-backend-config.js';
import { FerryError } from '../../errors/ferry-error.js';
import type { CommandSpec } from '../command-spec.js';
import { configFlag } from '../global-options.js';
import { renderEnsure } from '../render/ensure.js';
import { describeCopyProgress } from '../render/copy-progress-line.js';
import type { CopyProgressEvent } from '../../copy/copy-progress.js';

export const ensureJsonSchema = z.object({
  image: z.string(),
  store: z.string(),
  /** false: the image's backend on this host is not rbd (images_type_mapping), so no copy is needed and target is null. */
  needed: z.boolean(),
  copied: z.boolean(),
  joined: z.boolean(),
  seconds: z.number(),
  target: z.object({ fsid: z.string(), pool: z.string(), image: z.string(), snapshot: z.string(), url: z.string() }).nullable(),
  why: z.string(),
  /** The import task that brought the store (ours or the one joined); null when it was there already. */
  task: z.string().nullable(),
  /** The task whose expired import lock ferry made Glance bust (--take-over-expired); null otherwise. */
  took_over: z.string().nullable(),
  backend: z.object({ backend: z.string(), converted: z.boolean(), reason: z.string() }).optional(),
  image_reads: z.number().int(),
  import_requests: z.number().int(),
});

export type EnsureJson = z.infer<typeof ensureJsonSchema>;

export const ensureCommand: CommandSpec<EnsureOutcome> = {
  name: 'ensure',
  summary: 'Make sure IMAGE has a copy-on-write-clonable copy in the local Ceph store, copying it there when needed',
  description: 'IMAGE is an image ID or a unique name. --store names the Glance store of the local Ceph cluster '
    + '(nova.conf [libvirt] images_rbd_glance_store_name). Prints the RBD clone target.',
  examples: [
    'ferry ensure 3f1c2a9e-5b7d-4c1e-9a8f-0d2e4b6c8a10 --store site-b',
    'ferry ensure cirros-raw --store site-b --json',
    'ferry ensure IMAGE --nova-conf /etc/nova/nova.conf',
    'ferry ensure IMAGE --store site-b --fsid 1c8b72c6-a5a4-4acb-8aac-181c2f242f55 --os-token $T --glance-endpoint http://glance:9292',
  ],
  arguments: [{ name: 'IMAGE', description: 'image ID or unique name', required: true }],
  options: ['store', 'timeout', 'poll-interval', 'stale-lock-after', 'take-over-expired', 'fsid', 'ceph-conf', 'rbd-user'].map(configFlag),
  jsonSchema: ensureJsonSchema,
  async run(ctx) {
    const [imageRef] = ctx.args;
    const store = ctx.config.copy.store;
    if (store === undefined) {
      throw new FerryError('FERRY_INVALID_OPTION', 'no store given: ferry does not know which Glance store is the local Ceph cluster',
        'Pass --store NAME, set FERRY_STORE, or point --nova-conf at a nova.conf with [libvirt] images_rbd_glance_store_name.');
    }
    const cloud = await ctx.connect();
    // The live line ticks every second, not only when Glance is read (reads can be 15 s apart).
    let last: CopyProgressEvent | undefined;
    const started = Date.now();
    const tick = setInterval(() => {
      if (last) ctx.progress.update(describeCopyProgress({ ...last, elapsedMs: Date.now() - started }));
    }, 1_000);
    tick.unref();
    const options = {
      store,
      // --timeout counts from the command's start: what start-up and configuration took is already spent.
      timeoutMs: Math.max(1_000, Math.round(ctx.config.copy.timeoutMs - ctx.spentMs())),
      minPollDelayMs: ctx.config.copy.minPollDelayMs,
      maxPollDelayMs: ctx.config.copy.maxPollDelayMs,
      staleLockAfterMs: ctx.config.copy.staleLockAfterMs,
      takeOverExpired: ctx.config.copy.takeOverExpired,
      signal: ctx.signal,
      onProgress: (event: CopyProgressEvent) => {
        last = event;
        ctx.progress.update(describeCopyProgress(event));
      },
    };
    // Only a host whose storage was configured (nova.conf or flags) decides per image; otherwise every image needs rbd.
    const { host, sources } = ctx.config;
    const configured = sources['host.imagesType'] !== 'default' || host.imagesTypeMapping !== undefined;
    try {
      if (!configured) return await ensure(cloud, imageRef ?? '', options);
      const backend = resolveBackendConfig({ imagesType: host.imagesType, imagesTypeMapping: host.imagesTypeMapping ?? '',
        useCowImages: host.useCowImages, source: sources['host.imagesTypeMapping'] ?? sources['host.imagesType'] });
      return await ensureOnHost(cloud, imageRef ?? '', { ...options, backend });
    } finally {
      clearInterval(tick);
    }
  },
  toJson: (result): EnsureJson => (!result.needed ? {
    image: result.imageId, store: result.store, needed: false, copied: false, joined: false,
    seconds: Math.round(result.elapsedMs) / 1000, target: null, why: result.backend.reason, task: null, took_over: null,
    backend: { backend: result.backend.backend, converted: result.backend.converted, reason: result.backend.reason },
    image_reads: result.imageReads, import_requests: 0,
  } : {
    image: result.imageId,
    store: result.store,
    needed: true,
    copied: result.copied,
    joined: result.joined,
    seconds: Math.round(result.elapsedMs) / 1000,
    target: { ...result.target },
    why: result.why,
    task: result.taskId ?? null,
    took_over: result.tookOver ?? null,
    image_reads: result.imageReads,
    import_requests: result.importRequests,
  }),
  render: renderEnsure,
};
