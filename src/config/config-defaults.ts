// Every default of ferry's configuration, in one place. docs/configuration.md and docs/nova-conf.md quote these;
// where nova has a default for the same setting, ferry's is the same unless docs/nova-conf.md says otherwise.

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
    /** nova `[libvirt] images_rbd_glance_copy_poll_interval` (15 s): the cap of the waiter's backoff. */
    pollIntervalMs: 15_000,
    /** First delay of the waiter's backoff: a fast copy is seen within a second, not after a full interval. */
    minPollDelayMs: 250,
    /** nova `[libvirt] images_rbd_glance_copy_timeout` (600 s). */
    timeoutMs: 600_000,
    /** What nova's `images_rbd_glance_copy_timeout = 0` ("no timeout") becomes: ferry never waits forever. */
    noTimeoutCapMs: 86_400_000,
    /** Glance breaks an import lock whose task has not been updated for 60 min (glance-multistore.md §7). */
    staleLockAfterMs: 3_600_000,
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
  },
  scheduler: { imageTypePrefilter: false, imageMetadataPrefilter: false },
  /** Quiet unless asked: logs go to stderr, and warnings are what an operator should see. */
  log: { level: 'warn', debug: false },
} as const;
