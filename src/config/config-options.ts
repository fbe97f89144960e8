import { CONFIG_DEFAULTS } from './config-defaults.js';
import { IMAGES_TYPES, LOG_LEVELS, VIRT_TYPES } from './ferry-config.js';
import { RBD_QUIET_FLOOR_MS, TRANSFER_MODES } from './copy-policy.js';
import { optionTypes, type OptionType } from './option-types.js';

/**
 * One option an operator can set by flag, environment variable or clouds.yaml key. The CLI registers its global
 * flags from CONFIG_OPTIONS and docs/configuration.md lists the same names (a test keeps them in step).
 */
export interface ConfigOptionSpec<T> {
  /** Where the value lands in FerryConfig, and its key in `sources`. */
  readonly key: string;
  /** Long flag name without dashes (`os-auth-url`). */
  readonly flag?: string;
  /** A bare flag (`--insecure`) rather than one that takes a value. */
  readonly bareFlag?: boolean;
  /** The flag may be given several times, and every value counts (`--nova-conf A --nova-conf B`). */
  readonly repeatable?: boolean;
  /** Placeholder for help texts (`URL`, `SECONDS`). */
  readonly valueName?: string;
  readonly env?: readonly string[];
  /** Paths inside the cloud entry of clouds.yaml / secure.yaml, first present wins. */
  readonly clouds?: readonly string[];
  /** clouds.yaml keys holding this boolean's negation (`verify: false` = insecure). */
  readonly cloudsNegated?: readonly string[];
  readonly type: OptionType<T>;
  /** Never shown in messages, logs or `ferry config show`. */
  readonly secret?: boolean;
  readonly summary: string;
}

function option<T>(spec: ConfigOptionSpec<T>): ConfigOptionSpec<T> {
  return spec;
}

export const AUTH_TYPES = ['password', 'v3password', 'v3applicationcredential', 'token', 'v3token'] as const;

export const CONFIG_OPTIONS = {
  // Which cloud and which files.
  cloud: option({ key: 'origin.cloud', flag: 'os-cloud', valueName: 'NAME', env: ['OS_CLOUD'], type: optionTypes.text,
    summary: 'the cloud to use from clouds.yaml' }),
  novaConf: option({ key: 'origin.novaConfFiles', flag: 'nova-conf', valueName: 'FILE', repeatable: true, env: ['FERRY_NOVA_CONF'],
    type: optionTypes.path,
    summary: "read nova.conf's image, Ceph, Glance, Placement, TLS and scheduler options from FILE; a later FILE wins per option" }),

  // Keystone credentials, named as the openstack CLI names them.
  authType: option({ key: 'auth.method', flag: 'os-auth-type', valueName: 'TYPE', env: ['OS_AUTH_TYPE'], clouds: ['auth_type'],
    type: optionTypes.oneOf(AUTH_TYPES), summary: 'password, v3applicationcredential or token (inferred when absent)' }),
  authUrl: option({ key: 'auth.authUrl', flag: 'os-auth-url', valueName: 'URL', env: ['OS_AUTH_URL'], clouds: ['auth.auth_url'],
    type: optionTypes.url, summary: 'Keystone URL (with or without /v3)' }),
  username: option({ key: 'auth.username', flag: 'os-username', valueName: 'NAME', env: ['OS_USERNAME'], clouds: ['auth.username'],
    type: optionTypes.text, summary: 'user name (password auth; owner of an application credential given by name)' }),
  password: option({ key: 'auth.password', flag: 'os-password', valueName: 'PASSWORD', env: ['OS_PASSWORD'], clouds: ['auth.password'],
    type: optionTypes.text, secret: true, summary: 'password' }),
  projectName: option({ key: 'auth.project', flag: 'os-project-name', valueName: 'NAME', env: ['OS_PROJECT_NAME'],
    clouds: ['auth.project_name'], type: optionTypes.text, summary: 'project to scope the token to, by name' }),
  projectId: option({ key: 'auth.project', flag: 'os-project-id', valueName: 'ID', env: ['OS_PROJECT_ID'],
    clouds: ['auth.project_id'], type: optionTypes.text, summary: 'project to scope the token to, by id' }),
  userDomainName: option({ key: 'auth.userDomain', flag: 'os-user-domain-name', valueName: 'NAME', env: ['OS_USER_DOMAIN_NAME'],
    clouds: ['auth.user_domain_name', 'auth.domain_name'], type: optionTypes.text, summary: "user's domain, by name" }),
  userDomainId: option({ key: 'auth.userDomain', flag: 'os-user-domain-id', valueName: 'ID', env: ['OS_USER_DOMAIN_ID'],
    clouds: ['auth.user_domain_id', 'auth.domain_id'], type: optionTypes.text, summary: "user's domain, by id" }),
  projectDomainName: option({ key: 'auth.project.domain', flag: 'os-project-domain-name', valueName: 'NAME',
    env: ['OS_PROJECT_DOMAIN_NAME'], clouds: ['auth.project_domain_name', 'auth.domain_name'], type: optionTypes.text,
    summary: "project's domain, by name" }),
  projectDomainId: option({ key: 'auth.project.domain', flag: 'os-project-domain-id', valueName: 'ID', env: ['OS_PROJECT_DOMAIN_ID'],
    clouds: ['auth.project_domain_id', 'auth.domain_id'], type: optionTypes.text, summary: "project's domain, by id" }),
  appCredId: option({ key: 'auth.id', flag: 'os-application-credential-id', valueName: 'ID', env: ['OS_APPLICATION_CREDENTIAL_ID'],
    clouds: ['auth.application_credential_id'], type: optionTypes.text, summary: 'application credential, by id' }),
  appCredName: option({ key: 'auth.name', flag: 'os-application-credential-name', valueName: 'NAME',
    env: ['OS_APPLICATION_CREDENTIAL_NAME'], clouds: ['auth.application_credential_name'], type: optionTypes.text,
    summary: 'application credential, by name (with --os-username)' }),
  appCredSecret: option({ key: 'auth.secret', flag: 'os-application-credential-secret', valueName: 'SECRET',
    env: ['OS_APPLICATION_CREDENTIAL_SECRET'], clouds: ['auth.application_credential_secret'], type: optionTypes.text,
    secret: true, summary: 'application credential secret' }),
  token: option({ key: 'auth.token', flag: 'os-token', valueName: 'TOKEN', env: ['OS_TOKEN'], clouds: ['auth.token'],
    type: optionTypes.text, secret: true, summary: 'a pre-issued Keystone token' }),

  // Endpoints and TLS.
  regionName: option({ key: 'endpoints.region', flag: 'os-region-name', valueName: 'REGION', env: ['OS_REGION_NAME'],
    clouds: ['region_name'], type: optionTypes.text, summary: 'region of the endpoints to use' }),
  interface: option({ key: 'endpoints.interface', flag: 'os-interface', valueName: 'INTERFACE', env: ['OS_INTERFACE'],
    clouds: ['interface'], type: optionTypes.interface, summary: 'endpoint interface: public, internal or admin' }),
  glanceEndpoint: option({ key: 'endpoints.overrides.image', flag: 'glance-endpoint', valueName: 'URL',
    env: ['FERRY_GLANCE_ENDPOINT'], clouds: ['image_endpoint_override'], type: optionTypes.url,
    summary: 'Glance URL to use instead of the catalog' }),
  placementEndpoint: option({ key: 'endpoints.overrides.placement', flag: 'placement-endpoint', valueName: 'URL',
    env: ['FERRY_PLACEMENT_ENDPOINT'], clouds: ['placement_endpoint_override'], type: optionTypes.url,
    summary: 'Placement URL to use instead of the catalog' }),
  cacert: option({ key: 'tls.caFile', flag: 'os-cacert', valueName: 'FILE', env: ['OS_CACERT'], clouds: ['cacert'],
    type: optionTypes.path, summary: 'CA bundle to verify TLS certificates with' }),
  cert: option({ key: 'tls.certFile', flag: 'os-cert', valueName: 'FILE', env: ['OS_CERT'], clouds: ['cert'],
    type: optionTypes.path, summary: 'client certificate (PEM) for services that require one' }),
  key: option({ key: 'tls.keyFile', flag: 'os-key', valueName: 'FILE', env: ['OS_KEY'], clouds: ['key'],
    type: optionTypes.path, summary: "client certificate's private key (PEM), when not in the --os-cert file" }),
  insecure: option({ key: 'tls.verify', flag: 'insecure', bareFlag: true, env: ['OS_INSECURE'], clouds: ['insecure'],
    cloudsNegated: ['verify'], type: optionTypes.bool, summary: 'do not verify TLS certificates' }),

  // Copies into the local Ceph store.
  store: option({ key: 'copy.store', flag: 'store', valueName: 'STORE', env: ['FERRY_STORE'], type: optionTypes.storeName,
    summary: 'Glance store id of the local Ceph cluster' }),
  pollInterval: option({ key: 'copy.pollIntervalMs', flag: 'poll-interval', valueName: 'SECONDS', env: ['FERRY_POLL_INTERVAL'],
    type: optionTypes.secondsToMs, summary: 'longest pause between two polls of a running copy' }),
  timeout: option({ key: 'copy.timeoutMs', flag: 'timeout', valueName: 'SECONDS', env: ['FERRY_TIMEOUT'],
    type: optionTypes.secondsOrZeroToMs, summary: `how long to wait for one copy (0 = no timeout, capped at ${CONFIG_DEFAULTS.copy.noTimeoutCapMs / 3_600_000}h, as nova.conf's 0)` }),
  staleLockAfter: option({ key: 'copy.staleLockAfterMs', flag: 'stale-lock-after', valueName: 'SECONDS',
    env: ['FERRY_STALE_LOCK_AFTER'], type: optionTypes.secondsToMs,
    summary: "age of an import task's last update after which its lock is called stale" }),
  takeOverExpired: option({ key: 'copy.takeOverExpired', flag: 'take-over-expired', valueName: 'BOOL', env: ['FERRY_TAKE_OVER_EXPIRED'],
    type: optionTypes.bool, summary: 'send the import that makes Glance bust an import lock it holds expired (60/120-min rule)' }),

  // The direct RBD transfer (docs/copy.md, "The direct RBD transfer").
  transfer: option({ key: 'copy.transfer', flag: 'transfer', valueName: 'MODE', env: ['FERRY_TRANSFER'], clouds: ['ferry.transfer'],
    type: optionTypes.oneOf(TRANSFER_MODES), summary: 'how a missing store is brought: glance (copy-image), rbd (direct RBD → RBD), auto (rbd where it can)' }),
  sourceCephConf: option({ key: 'copy.sourceCephConfs', flag: 'source-ceph-conf', valueName: 'STORE=PATH', repeatable: true,
    env: ['FERRY_SOURCE_CEPH_CONF'], clouds: ['ferry.source_ceph_conf'], type: optionTypes.storeConfPairs,
    summary: 'a cluster the direct transfer may read from: its Glance store id and ceph.conf (repeatable; env: pairs separated by :)' }),
  sourceRbdUser: option({ key: 'copy.sourceRbdUser', flag: 'source-rbd-user', valueName: 'USER', env: ['FERRY_SOURCE_RBD_USER'],
    clouds: ['ferry.source_rbd_user'], type: optionTypes.text, summary: 'cephx user on the source clusters (default: --rbd-user)' }),
  rbdQuietTime: option({ key: 'copy.rbdQuietMs', flag: 'rbd-quiet-time', valueName: 'SECONDS', env: ['FERRY_RBD_QUIET_TIME'],
    clouds: ['ferry.rbd_quiet_time'], type: optionTypes.secondsAtLeastToMs(RBD_QUIET_FLOOR_MS / 1000),
    summary: "how long another host's unopened, unwritten temporary image waits before it is removed as a leftover (at least 90s)" }),

  // The local Ceph cluster.
  cephConf: option({ key: 'ceph.confFile', flag: 'ceph-conf', valueName: 'FILE', env: ['FERRY_CEPH_CONF'], type: optionTypes.path,
    summary: 'ceph.conf of the local cluster' }),
  rbdUser: option({ key: 'ceph.user', flag: 'rbd-user', valueName: 'USER', env: ['FERRY_RBD_USER'], type: optionTypes.text,
    summary: 'cephx user (without client.)' }),
  rbdPool: option({ key: 'ceph.pool', flag: 'rbd-pool', valueName: 'POOL', env: ['FERRY_RBD_POOL'], type: optionTypes.text,
    summary: 'pool for instance disks (clone destination)' }),
  fsid: option({ key: 'ceph.fsid', flag: 'fsid', valueName: 'FSID', env: ['FERRY_FSID'], type: optionTypes.fsid,
    summary: "the local cluster's fsid (skips asking the cluster)" }),

  // The compute host's image storage (as nova.conf [libvirt] / [DEFAULT] / [compute] set it).
  imagesType: option({ key: 'host.imagesType', flag: 'images-type', valueName: 'TYPE', env: ['FERRY_IMAGES_TYPE'],
    type: optionTypes.oneOf(IMAGES_TYPES), summary: `instance disk backend: ${IMAGES_TYPES.join(', ')} ([libvirt] images_type)` }),
  imagesTypeMapping: option({ key: 'host.imagesTypeMapping', flag: 'images-type-mapping', valueName: 'MAPPING',
    env: ['FERRY_IMAGES_TYPE_MAPPING'], type: optionTypes.text,
    summary: "per-format backends, e.g. 'raw:rbd, ploop:ploop' ([libvirt] images_type_mapping)" }),
  useCowImages: option({ key: 'host.useCowImages', flag: 'use-cow-images', valueName: 'BOOL', env: ['FERRY_USE_COW_IMAGES'],
    type: optionTypes.bool, summary: 'what images_type=default means: true qcow2, false flat ([DEFAULT] use_cow_images)' }),
  forceRawImages: option({ key: 'host.forceRawImages', flag: 'force-raw-images', valueName: 'BOOL', env: ['FERRY_FORCE_RAW_IMAGES'],
    type: optionTypes.bool, summary: 'convert images to raw on the host ([DEFAULT] force_raw_images)' }),
  imageTypeExcludeList: option({ key: 'host.imageTypeExcludeList', flag: 'image-type-exclude', valueName: 'LIST',
    env: ['FERRY_IMAGE_TYPE_EXCLUDE'], type: optionTypes.list, summary: 'image types the host must not report ([compute] image_type_exclude_list)' }),
  virtType: option({ key: 'host.virtType', flag: 'virt-type', valueName: 'TYPE', env: ['FERRY_VIRT_TYPE'],
    type: optionTypes.oneOf(VIRT_TYPES), summary: `hypervisor: ${VIRT_TYPES.join(', ')} ([libvirt] virt_type)` }),
  swtpm: option({ key: 'host.swtpmEnabled', flag: 'swtpm', bareFlag: true, env: ['FERRY_SWTPM'], type: optionTypes.bool,
    summary: 'the host runs with [libvirt] swtpm_enabled = True (TPM traits)' }),

  // HTTP.
  requestTimeout: option({ key: 'http.requestTimeoutMs', flag: 'request-timeout', valueName: 'SECONDS',
    env: ['FERRY_REQUEST_TIMEOUT'], clouds: ['api_timeout'], type: optionTypes.secondsToMs,
    summary: 'time a service has for its answer\'s headers, and its body for each silence (twice it in all)' }),
  connectTimeout: option({ key: 'http.connectTimeoutMs', flag: 'connect-timeout', valueName: 'SECONDS',
    env: ['FERRY_CONNECT_TIMEOUT'], type: optionTypes.secondsToMs, summary: 'deadline of one TCP/TLS connection' }),
  retries: option({ key: 'http.retries', flag: 'retries', valueName: 'N', env: ['FERRY_RETRIES'], type: optionTypes.integer(0),
    summary: 'retries of a request after a connection-type error' }),

  // Logging.
  logLevel: option({ key: 'log.level', flag: 'log-level', valueName: 'LEVEL', env: ['FERRY_LOG_LEVEL'],
    type: optionTypes.oneOf(LOG_LEVELS), summary: `log level on stderr: ${LOG_LEVELS.join(', ')}` }),
  debug: option({ key: 'log.debug', flag: 'debug', bareFlag: true, env: ['FERRY_DEBUG'], type: optionTypes.bool,
    summary: 'debug logs and stack traces' }),
} as const;

export type ConfigOptionId = keyof typeof CONFIG_OPTIONS;
