/**
 * `promise`, or `signal`'s reason as soon as it aborts: the caller stops waiting on work it cannot cancel (a shared
 * single flight, a check that does not take the signal). The work itself goes on; its result is dropped.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => { signal.removeEventListener('abort', onAbort); resolve(value); },
      // the work's own (coded) error, passed on unchanged
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      (error: unknown) => { signal.removeEventListener('abort', onAbort); reject(error); },
    );
  });
}
