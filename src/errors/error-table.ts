// Every error code ferry can raise, its process exit code and a one-line summary.
// docs/exit-codes.md documents the same table; a contract test keeps the two in step.

export const ERROR_TABLE = {
  FERRY_INTERNAL: { exit: 1, summary: 'unexpected internal error (please report it)' },
  FERRY_INVALID_OPTION: { exit: 2, summary: 'a flag, option or argument is invalid' },
  FERRY_INVALID_CONFIG: { exit: 3, summary: 'a configuration file (clouds.yaml, nova.conf, policy) is invalid' },
  FERRY_INVALID_IMAGE_REF: { exit: 4, summary: 'the image reference is malformed' },
  FERRY_INVALID_IMAGE_FILE: { exit: 5, summary: 'a local image document (--image FILE.json) is malformed' },
  FERRY_AUTH_FAILED: { exit: 10, summary: 'authentication failed (bad or expired credentials)' },
  FERRY_FORBIDDEN: { exit: 11, summary: 'the service refused the call by policy (HTTP 403)' },
  FERRY_ENDPOINT_NOT_FOUND: { exit: 12, summary: 'no endpoint for the service in the catalog' },
  FERRY_UNREACHABLE: { exit: 13, summary: 'a service could not be reached (connection failed)' },
  FERRY_TIMEOUT_CONNECT: { exit: 14, summary: 'a service did not accept the connection in time' },
  FERRY_TIMEOUT_RESPONSE: { exit: 15, summary: 'a service accepted the request but never answered in time' },
  FERRY_TIMEOUT_BODY: { exit: 16, summary: 'a service stalled in the middle of its answer, or sent it too slowly' },
  FERRY_HTTP: { exit: 17, summary: 'a service answered with an unexpected HTTP status' },
  FERRY_BAD_RESPONSE: { exit: 18, summary: 'a service answered with a body ferry does not understand, or one larger than ferry reads' },
  FERRY_TLS: { exit: 19, summary: 'the TLS handshake failed (certificate not trusted, or a client certificate is required)' },
  FERRY_IMAGE_NOT_FOUND: { exit: 20, summary: 'no such image' },
  FERRY_IMAGE_AMBIGUOUS: { exit: 21, summary: 'the image name matches more than one image' },
  FERRY_IMAGE_NOT_ACTIVE: { exit: 22, summary: 'the image is not active, so it cannot be copied' },
  FERRY_STORE_NOT_FOUND: { exit: 23, summary: 'Glance has no store of that name' },
  FERRY_NOT_CLONABLE: { exit: 24, summary: 'the image cannot be cloned copy-on-write (e.g. not raw)' },
  FERRY_LOCATIONS_HIDDEN: { exit: 25, summary: 'Glance does not show image locations to this caller' },
  FERRY_NOT_LOCAL: { exit: 26, summary: 'the store holds the image but not in the local Ceph cluster' },
  FERRY_COPY_FAILED: { exit: 30, summary: 'Glance reports the copy failed' },
  FERRY_COPY_TIMEOUT: { exit: 31, summary: 'the copy did not finish before the deadline' },
  FERRY_COPY_STUCK: { exit: 32, summary: 'the image import lock is held by a task that stopped moving' },
  FERRY_COPY_TARGET_EXISTS: { exit: 33, summary: 'the target pool already holds an RBD image of that name (a leftover): every copy fails until it is removed' },
  FERRY_COPY_UNCONFIRMED: { exit: 34, summary: 'the connection was lost after the copy request was sent: the copy may be running' },
  FERRY_CEPH: { exit: 35, summary: 'the ceph/rbd command failed' },
  FERRY_RBD_SOURCE_UNREACHABLE: { exit: 36, summary: 'no source cluster named by --source-ceph-conf holds a readable copy of the image (direct RBD transfer)' },
  FERRY_RBD_SOURCE_LOST: { exit: 37, summary: 'the source image or cluster went away during a direct RBD transfer; nothing was registered' },
  FERRY_COPY_HASH_MISMATCH: { exit: 38, summary: 'the bytes written by a direct RBD transfer do not match the image hash; nothing was registered and the copy was removed' },
  FERRY_COPY_UNVERIFIABLE: { exit: 39, summary: 'the image has neither os_hash_value nor checksum, so a direct RBD copy cannot be proven' },
  FERRY_RBD_TARGET_POOL_UNKNOWN: { exit: 28, summary: 'the pool of the target store is not known (Glance names it only to admins in /v2/info/stores/detail): no direct RBD transfer' },
  FERRY_LOCATION_REFUSED: { exit: 27, summary: 'Glance refused to register the new location (policy, show_multiple_locations off); the copy was removed' },
  FERRY_INVALID_XML: { exit: 40, summary: 'the libvirt XML is malformed or not domain capabilities' },
  FERRY_UNKNOWN_TRAIT: { exit: 41, summary: 'a trait name is not known to the target Placement' },
  FERRY_PROVIDER_NOT_FOUND: { exit: 42, summary: 'no such resource provider in Placement' },
  FERRY_PLACEMENT_CONFLICT: { exit: 43, summary: 'Placement kept reporting a generation conflict' },
  FERRY_TRAIT_CONFLICT: { exit: 44, summary: 'the request both requires and forbids the same trait' },
  FERRY_INVALID_MAPPING: { exit: 45, summary: 'images_type / images_type_mapping is invalid' },
  FERRY_VIRSH: { exit: 46, summary: 'the virsh command is missing, failed or timed out' },
  FERRY_PARTIAL_FAILURE: { exit: 50, summary: 'some items of a batch failed (see the report)' },
  FERRY_BUDGET_UNMET: { exit: 51, summary: 'a store stays over its budget: what is left is in use, pinned, the last copy, being imported or not idle long enough (see the report)' },
  FERRY_CAPACITY_UNKNOWN: { exit: 52, summary: 'a budget is a percentage of a capacity the cluster does not report (no pool quota; ceph df without a ceph-mgr)' },
  FERRY_AGENT_UNAVAILABLE: { exit: 60, summary: 'the ferry agent socket does not answer (not running, or no permission)' },
  FERRY_AGENT_BUSY: { exit: 61, summary: 'the ferry agent refused the request: too many distinct waits (--max-waits)' },
  FERRY_AGENT_SHUTTING_DOWN: { exit: 62, summary: 'the ferry agent is shutting down and did not finish the request' },
  FERRY_AGENT_BAD_REQUEST: { exit: 63, summary: 'the ferry agent refused a malformed request' },
  FERRY_AGENT_SOCKET_IN_USE: { exit: 64, summary: 'another ferry agent already answers on the socket path' },
  FERRY_HAND_OUT_TIMEOUT: { exit: 67, summary: 'the ferry agent could not hand out a copy before the caller\'s deadline: the copy stayed gone or fenced by an eviction (nova takes its own path)' },
  FERRY_STORE_NOT_ALLOWED: { exit: 66, summary: 'the ferry agent does not serve that store: it serves its own only (--store, --allow-store)' },
  FERRY_NOVA_INTEGRATION: { exit: 65, summary: 'ferry\'s nova patch no longer applies to the installed nova (nova runs its stock copy)' },
  FERRY_ABORTED: { exit: 130, summary: 'interrupted (Ctrl-C or an abort signal)' },
} as const satisfies Readonly<Record<string, { readonly exit: number; readonly summary: string }>>;

export type FerryErrorCode = keyof typeof ERROR_TABLE;

export const FERRY_ERROR_CODES = Object.keys(ERROR_TABLE) as readonly FerryErrorCode[];

export function exitCodeFor(code: FerryErrorCode): number {
  return ERROR_TABLE[code].exit;
}
