// When the soak's tenants log in again. Keystone's tokens live an hour here ([token] expiration = 3600 s, the default):
// a 60-minute soak that kept its set-up tokens booted with expired ones from minute 60 on (seed 38: six boots failed
// ImageNotAuthorized at 3607-3634 s), which no user's boot does: a request carries the user's current token. The
// token-expiry fault revokes one on purpose; this is the everyday renewal. Pure.

/** Half of Keystone's default token lifetime: renewed long before it can expire during a boot (nova's margin). */
export const TOKEN_RENEW_AFTER_MS = 30 * 60_000;

/** Whether a token issued at `issuedAtMs` is to be replaced by a new login at `nowMs`. */
export function tokenDue(issuedAtMs: number, nowMs: number, renewAfterMs: number = TOKEN_RENEW_AFTER_MS): boolean {
  return nowMs - issuedAtMs >= renewAfterMs;
}
