/**
 * What an acceptor concludes from one snapshot. `retry` may carry an estimate of how long until the awaited event
 * (`etaMs`): the delay policy then sleeps towards it instead of blindly backing off.
 */
export type Verdict<T> =
  | { readonly state: 'success'; readonly value: T }
  | { readonly state: 'failure'; readonly reason: string }
  | { readonly state: 'retry'; readonly note?: string; readonly etaMs?: number };

/** A pure function over one snapshot; `undefined` = no opinion, the next acceptor decides. First verdict wins. */
export type Acceptor<S, T> = (snapshot: S) => Verdict<T> | undefined;

/** Apply acceptors in order; a snapshot none of them judges is a plain retry. */
export function judge<S, T>(snapshot: S, acceptors: readonly Acceptor<S, T>[]): Verdict<T> {
  for (const acceptor of acceptors) {
    const verdict = acceptor(snapshot);
    if (verdict !== undefined) return verdict;
  }
  return { state: 'retry' };
}
