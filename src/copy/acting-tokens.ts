import { FerryError } from '../errors/ferry-error.js';
import { chooseActingWaiter, type TokenWaiter } from './acting-token.js';

/**
 * The user tokens of the callers waiting on each shared copy, held only while each caller's request lasts: the copy's
 * Glance calls act for one of them (chooseActingWaiter). Nothing is kept once a caller leaves, whatever its end.
 */
export interface ActingTokens {
  /** A caller joins the wait `key` with its user's token; `leave()` when its request ends (answered, failed or gone). */
  enter(key: string, token: string): { leave(): void };
  /** The token for the next Glance call of the wait `key`: FERRY_ABORTED when no caller is left. */
  tokenFor(key: string): string;
  /**
   * Glance refused the token `tokenFor(key)` last gave (401, ferry's own accepted): never use it again. True when
   * another waiting caller's token is there to try, so one user's revoked token does not fail everybody's copy.
   */
  refuse(key: string): boolean;
  /** Waits with a caller now (the tests check that nothing outlives its requests). */
  readonly size: number;
}

interface Wait {
  readonly waiters: TokenWaiter[];
  /** Waiters whose token Glance refused. */
  readonly refused: Set<number>;
  current: number | undefined;
}

export function createActingTokens(): ActingTokens {
  const waits = new Map<string, Wait>();
  let nextId = 0;
  return {
    enter(key, token) {
      const wait = waits.get(key) ?? { waiters: [], refused: new Set<number>(), current: undefined };
      waits.set(key, wait);
      const waiter = { id: nextId, token };
      nextId += 1;
      wait.waiters.push(waiter);
      let left = false;
      return {
        leave() {
          if (left) return;
          left = true;
          const index = wait.waiters.indexOf(waiter);
          if (index !== -1) wait.waiters.splice(index, 1);
          wait.refused.delete(waiter.id);
          if (wait.waiters.length === 0 && waits.get(key) === wait) waits.delete(key);
        },
      };
    },
    tokenFor(key) {
      const wait = waits.get(key);
      const chosen = wait === undefined ? undefined : chooseActingWaiter(wait.current, wait.waiters, wait.refused);
      if (wait !== undefined && chosen === undefined && wait.waiters.length > 0) {
        // Callers still wait, but Glance refused every one's token: that refusal is their answer, not an abort.
        throw new FerryError('FERRY_AUTH_FAILED', 'Glance refused the token of every user still waiting on this copy (ferry\'s own token is accepted)',
          'The booting requests\' tokens are invalid or revoked: the users must authenticate again. Nothing is wrong with ferry\'s own credential.',
          { refused: 'user' });
      }
      if (wait === undefined || chosen === undefined) {
        throw new FerryError('FERRY_ABORTED', 'every caller of this copy has gone: no user token is left to act with',
          'Nothing to do: the copy Glance already runs goes on; the next request picks it up.');
      }
      wait.current = chosen.id;
      return chosen.token;
    },
    refuse(key) {
      const wait = waits.get(key);
      if (wait === undefined) return false;
      if (wait.current !== undefined) wait.refused.add(wait.current);
      return chooseActingWaiter(wait.current, wait.waiters, wait.refused) !== undefined;
    },
    get size() {
      return waits.size;
    },
  };
}
