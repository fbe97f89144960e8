import type { CephCluster } from './ceph-cluster.js';
import type { CopyPolicy } from './copy-policy.js';
// The one validated configuration object, and the shapes inside it. Built by resolveConfig (resolve-config.ts);
// everything below the CLI reads these and never looks at flags, environment or files again.

export const ENDPOINT_INTERFACES = ['public', 'internal', 'admin'] as const;
export type EndpointInterface = (typeof ENDPOINT_INTERFACES)[number];

/** nova's `[libvirt] images_type` choices. */
export const IMAGES_TYPES = ['raw', 'flat', 'qcow2', 'lvm', 'rbd', 'ploop', 'default'] as const;
export type ImagesType = (typeof IMAGES_TYPES)[number];

/** nova's `[libvirt] virt_type` choices. */
export const VIRT_TYPES = ['kvm', 'lxc', 'qemu', 'parallels'] as const;
export type VirtType = (typeof VIRT_TYPES)[number];

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// The credentials live with the Keystone session that uses them (openstack/ sits below config/).
export type { ApplicationCredentialAuthConfig, AuthConfig, AuthMethodName, DomainRef, PasswordAuthConfig, ProjectRef, TokenAuthConfig } from '../openstack/auth-config.js';
import type { AuthConfig } from '../openstack/auth-config.js';

/** One piece of credentials that is missing, and every way to give it (for the "missing credentials" message). */
export interface MissingAuthPiece {
  readonly what: string;
  readonly ways: readonly string[];
}

/** How to reach one service: an explicit URL, or the catalog entry to pick (interfaces tried in order). */
export interface ServiceEndpointConfig {
  readonly url?: string;
  readonly interfaces: readonly EndpointInterface[];
  readonly region?: string;
}

export interface EndpointConfig {
  /** The cloud-wide interface (--os-interface, OS_INTERFACE, clouds.yaml `interface`); also used for Keystone. */
  readonly interface: EndpointInterface;
  readonly region?: string;
  readonly overrides: { readonly image?: string; readonly placement?: string };
  /** Resolved per service: the cloud-wide settings above, or nova.conf's `[glance]` / `[placement]` ones. */
  readonly image: ServiceEndpointConfig;
  readonly placement: ServiceEndpointConfig;
}

export interface TlsConfig {
  readonly caFile?: string;
  /** Client certificate (PEM) for services that demand one; it may hold the private key too. */
  readonly certFile?: string;
  /** Private key (PEM) of certFile; undefined = the key is in certFile. */
  readonly keyFile?: string;
  /** Certificate verification; on unless --insecure, OS_INSECURE, `verify: false` or `[glance] insecure`. */
  readonly verify: boolean;
}

/** The copy section: the CopyPolicy every copy follows, plus where to copy to and what the operator configured. */
export interface CopyConfig extends CopyPolicy {
  /** The Glance store id of the local Ceph cluster; undefined = copying is off (as in nova). */
  readonly store?: string;
  /**
   * The interval the operator configured (nova's fixed poll interval). It becomes the policy's maxPollDelayMs, and
   * the first delay is min(the default first delay, this); nova's timeout 0 ("no timeout") becomes
   * CONFIG_DEFAULTS.copy.noTimeoutCapMs.
   */
  readonly pollIntervalMs: number;
}

/**
 * The local cluster as configured: a CephCluster whose ceph.conf may be unnamed (librados' default lookup, nova's
 * `images_rbd_ceph_conf = ''`: then buildCephCluster gives undefined, and nothing runs a ceph or rbd command), whose fsid
 * (--fsid, lower-case; undefined = ask the cluster) is trusted as given, plus the pool nova's disks live in.
 */
export interface CephConfig extends Partial<CephCluster> {
  readonly pool: string;
}

export interface HttpConfig {
  readonly requestTimeoutMs: number;
  readonly connectTimeoutMs: number;
  /** Retries after the first attempt, on connection-type errors (nova's `[glance] num_retries`). */
  readonly retries: number;
}

/** The compute host's image storage settings, as nova sees them (read by backend/ and traits/). */
export interface HostConfig {
  readonly imagesType: ImagesType;
  /** Raw `[libvirt] images_type_mapping`; backend/ parses it. */
  readonly imagesTypeMapping?: string;
  readonly useCowImages: boolean;
  readonly forceRawImages: boolean;
  readonly imageTypeExcludeList: readonly string[];
  readonly virtType: VirtType;
  /** `[libvirt] swtpm_enabled`: the TPM traits. */
  readonly swtpmEnabled: boolean;
  /** `[libvirt] hw_machine_type` (arch → machine type): which domain capabilities nova reads (`traits --virsh`). */
  readonly machineTypes: Readonly<Record<string, string>>;
  /** `[libvirt] connection_uri`; undefined = nova's URI for the virt type. */
  readonly libvirtUri?: string;
}

export interface SchedulerConfig {
  /** `[scheduler] query_placement_for_image_type_support`. */
  readonly imageTypePrefilter: boolean;
  /** `[scheduler] image_metadata_prefilter`. */
  readonly imageMetadataPrefilter: boolean;
}

export interface LogConfig {
  readonly level: LogLevel;
  /** Stack traces on unexpected errors; also lowers the default log level to debug. */
  readonly debug: boolean;
}

/** Which cloud and files the configuration was read from (for `ferry config show` and messages). */
export interface ConfigOrigin {
  readonly cloud?: string;
  readonly cloudsFile?: string;
  readonly secureFile?: string;
  /** Every nova.conf read, in order (a later file wins per option, as in oslo.config). */
  readonly novaConfFiles?: readonly string[];
}

export interface FerryConfig {
  /** undefined when no complete set of credentials was given: commands that need a cloud call requireAuth. */
  readonly auth: AuthConfig | undefined;
  /** What is missing when `auth` is undefined (empty otherwise). */
  readonly missingAuth: readonly MissingAuthPiece[];
  readonly endpoints: EndpointConfig;
  readonly tls: TlsConfig;
  readonly copy: CopyConfig;
  readonly ceph: CephConfig;
  readonly http: HttpConfig;
  readonly host: HostConfig;
  readonly scheduler: SchedulerConfig;
  readonly log: LogConfig;
  readonly origin: ConfigOrigin;
  /** Where each value came from, keyed by its path in this object ('copy.timeoutMs' → 'OS_… / --… / file …'). */
  readonly sources: Readonly<Record<string, string>>;
}
