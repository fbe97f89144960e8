import pRetry from 'p-retry';

/**
 * A fault's recovery (`scripts/devcloud/up`), tried again when it fails: at load the OSD's `up` can still be waiting
 * when the schedule's next fault restarts a monitor, and then exits 1 though the OSD is back (seed 37 at 7414e04).
 * Never throws: the caller closes the outage window either way (an open window ran to the end of that run, took in the
 * Glance outages' pages as the OSD's, and would have excused every later failure at that site) and reports a failure.
 */
export async function recover(up: () => Promise<void>, options: { readonly retries: number; readonly pauseMs: number } = RECOVER_DEFAULTS):
Promise<{ readonly ok: true; readonly tries: number } | { readonly ok: false; readonly tries: number; readonly error: unknown }> {
  let tries = 0;
  try {
    await pRetry(async () => {
      tries += 1;
      await up();
    }, { retries: options.retries, minTimeout: options.pauseMs, maxTimeout: options.pauseMs, factor: 1 });
    return { ok: true, tries };
  } catch (error) {
    return { ok: false, tries, error };
  }
}

/** Three tries, 10 s apart: a monitor restart is over in seconds (the soak's `mon-restart` recovers in ~16 s at load). */
export const RECOVER_DEFAULTS = { retries: 2, pauseMs: 10_000 } as const;
