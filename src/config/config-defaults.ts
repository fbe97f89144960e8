// Every default of ferry's configuration, in one place. docs/configuration.md and docs/nova-conf.md quote these;
// where nova has a default for the same setting, ferry's is the same unless docs/nova-conf.md says otherwise.
// The copy defaults are the CopyPolicy's own (COPY_POLICY_DEFAULTS), so the CLI and library callers behave alike.
import { COPY_POLICY_DEFAULTS } from './copy-policy.js';

export const CONFIG_DEFAULTS = {
  endpoints: {
    /** The openstack CLI's default. nova's own `[glance]`/`[placement] valid_interfaces` default is internal,public. */
    interface: 'public',
  },
  tls: { verify: true },
  auth: {
    /** The domain assumed for a user or project given by name without a domain (osc-lib's default domain). */
    defaultDomainId: 'default',
  },
  copy: {
    /** nova `[libvirt] images_rbd_glance_copy_poll_interval` (15 s): the cap of the waiter's delays. */
    pollIntervalMs: COPY_POLICY_DEFAULTS.maxPollDelayMs,
    /** The waiter's first and smallest delay: the end of a copy is seen within about this long. */
    minPollDelayMs: COPY_POLICY_DEFAULTS.minPollDelayMs,
    /** nova `[libvirt] images_rbd_glance_copy_timeout` (600 s). */
    timeoutMs: COPY_POLICY_DEFAULTS.timeoutMs,
    /** What nova's `images_rbd_glance_copy_timeout = 0` ("no timeout") becomes: ferry never waits forever. */
    noTimeoutCapMs: 86_400_000,
    /**
     * A lock whose task has not moved for this long is reported as stuck (10 min). Glance itself breaks such a lock
     * only after 60 min (glance-multistore.md §7); waiting for that would make the check pointless.
     */
    staleLockAfterMs: COPY_POLICY_DEFAULTS.staleLockAfterMs,
    /** Take over a lock Glance would release anyway (its own 60/120-min rule): nothing is lost by asking. */
    takeOverExpired: COPY_POLICY_DEFAULTS.takeOverExpired,
    /** Glance's copy-image: the direct RBD transfer needs Ceph access to the source clusters, so it is asked for. */
    transfer: COPY_POLICY_DEFAULTS.transfer,
    sourceCephConfs: COPY_POLICY_DEFAULTS.sourceCephConfs,
    /** 180 s: a temporary image of another host's writer is removed only after this long unopened and unwritten. */
    rbdQuietMs: COPY_POLICY_DEFAULTS.rbdQuietMs,
  },
  ceph: {
    /** nova `[libvirt] images_rbd_pool`. */
    pool: 'rbd',
  },
  http: {
    requestTimeoutMs: 30_000,
    connectTimeoutMs: 10_000,
    /** nova `[glance] num_retries`. */
    retries: 3,
  },
  host: {
    imagesType: 'default',
    useCowImages: true,
    forceRawImages: true,
    imageTypeExcludeList: [],
    virtType: 'kvm',
    swtpmEnabled: false,
    machineTypes: {},
  },
  scheduler: { imageTypePrefilter: false, imageMetadataPrefilter: false },
  /** Quiet unless asked: logs go to stderr, and warnings are what an operator should see. */
  log: { level: 'warn', debug: false },
} as const;
