/**
 * The largest answer ferry reads from each service. Past it the connection is dropped and the call fails with
 * FERRY_BAD_RESPONSE (read-bounded-body.ts): an endless or huge answer (a proxy's stream, an image stuffed with
 * properties) must not exhaust the agent's memory (MemoryMax=512M) or keep a call reading forever.
 *
 * Sizes measured on the dev cloud (Glance 25, Keystone 22, Placement 8) and in fixtures/, and the margins:
 * - Keystone: a token document is 1.4 KiB with 3 endpoints, ~150 bytes per endpoint and ~80 per service. 8 MiB holds
 *   ~50 000 endpoints: a catalog of 40 services × 20 regions × 3 interfaces (2 400, ~360 KiB) with a margin of 20.
 * - Glance: an image is 0.6 KiB queued, 1.3–2 KiB active with two stores; 33 KiB at the property quota (128) with
 *   values of 255 characters (Glance itself takes values of megabytes). A task is ~0.7 KiB, and an image's task list
 *   holds every task of the last 48 h: 2 900 retries (one a minute) are ~2 MiB. An image list page of ferry's 200 is
 *   ~0.4 MiB of plain images, 6.6 MiB of images at the quota: 32 MiB is five times the heaviest page.
 * - Placement: a provider summary with a compute host's ~100 traits is ~3 KiB; 1 000 allocation candidates (nova's
 *   limit) ~3 MiB, 10 000 hosts listed without a limit ~32 MiB: 64 MiB.
 */
export const SERVICE_BODY_LIMITS = {
  keystone: 8 << 20,
  glance: 32 << 20,
  placement: 64 << 20,
} as const;
