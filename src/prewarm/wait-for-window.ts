import { windowWaitMs, type TimeWindow } from '../clock/time-window.js';
import type { CopyContext } from '../copy/copy-context.js';

/** --window: a job waits until the window is open (a stop ends the wait: the job then reports itself interrupted). */
export async function waitForWindow(ctx: CopyContext, options: { readonly window: TimeWindow | undefined; readonly signal: AbortSignal | undefined }): Promise<void> {
  if (options.window === undefined) return;
  const waitMs = windowWaitMs(options.window, ctx.clock.wallNow());
  if (waitMs === 0) return;
  ctx.logger.info({ window: options.window.text, waitS: Math.round(waitMs / 1000) }, 'outside the --window: the copy waits for it to open');
  await ctx.clock.sleep(waitMs, options.signal).catch(() => undefined);
}
