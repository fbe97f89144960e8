/** One check of `GET /healthz`: passed, or failed with ferry's error code and what went wrong. */
export type HealthCheck = { readonly ok: true } | { readonly ok: false; readonly code: string; readonly message: string };
