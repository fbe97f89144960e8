import { resolve } from 'node:path';
import { cloudsSearchPath } from './clouds-search-path.js';
import { CONFIG_DEFAULTS } from './config-defaults.js';
import { ConfigIssues } from './config-issues.js';
import { ConfigLayers, type EnvValues, type FlagValues } from './config-layers.js';
import { CONFIG_OPTIONS } from './config-options.js';
import { derivedSource, type Sourced } from './config-source.js';
import type { FerryConfig, ImagesType, VirtType } from './ferry-config.js';
import { loadCloud } from './load-cloud.js';
import { parseNovaConfPath } from './nova-conf-path.js';
import { readNovaConfFiles, type NovaConfFile, type NovaConfValues } from './read-nova-conf.js';
import { readTextFile } from './read-text-file.js';
import { resolveAuth } from './resolve-auth.js';
import { resolveEndpoints, resolveTls } from './resolve-endpoints.js';
import { SourceLog } from './source-log.js';

const O = CONFIG_OPTIONS;
const D = CONFIG_DEFAULTS;

export interface ResolveConfigInput {
  /** Parsed flags by long name (`os-auth-url`, or commander's `osAuthUrl`); unknown names are ignored. */
  readonly flags: FlagValues;
  readonly env: EnvValues;
  /** Relative paths (flags, variables, OS_CLIENT_CONFIG_FILE) resolve against it; `./clouds.yaml` is looked up in it. */
  readonly cwd: string;
  readonly homeDir: string;
  /** The effective uid: as root, `./clouds.yaml` is not looked up (clouds-search-path.ts). */
  readonly euid?: number | undefined;
  /** The text of a file, or undefined when it is missing or unreadable. Default: the file system. */
  readonly readFile?: (path: string) => string | undefined;
}

/**
 * Build the one FerryConfig from flags > environment > clouds.yaml (+ secure.yaml) > nova.conf > CONFIG_DEFAULTS.
 * Pure apart from `readFile`. Every invalid value anywhere is reported in one FerryError: FERRY_INVALID_OPTION when
 * a flag or variable is at fault, else FERRY_INVALID_CONFIG. Missing credentials are not an error here: `auth` is
 * then undefined and requireAuth explains what is missing.
 */
export function resolveConfig(input: ResolveConfigInput): FerryConfig {
  const issues = new ConfigIssues();
  const sources = new SourceLog();
  const readFile = input.readFile ?? readTextFile;
  const base = new ConfigLayers(input.flags, input.env, issues);

  const requested = base.pick(O.cloud);
  const cloud = loadCloud({
    requested,
    implicit: requested === undefined && !hasCredentialVariables(input.env),
    search: cloudsSearchPath(input),
    readFile,
    issues,
  });
  if (cloud !== undefined) sources.record('origin.cloud', cloud.selectedBy);
  const layers = base.withCloud(cloud);

  const novaPaths = layers.pickAll(O.novaConf);
  if (novaPaths[0] !== undefined) sources.record('origin.novaConfFiles', novaPaths[0].source);
  const novaRead = readNovaFiles(novaPaths, input.cwd, readFile, issues);
  // The files read: an optional one (`-PATH`) that is absent is not among them.
  const novaConfFiles = novaRead.paths;
  const nova = novaRead.values;

  const { auth, missing } = resolveAuth(layers, sources);
  const endpointInputs = { layers, nova, sources, issues, cwd: input.cwd };
  const endpoints = resolveEndpoints(endpointInputs);
  const tls = resolveTls(endpointInputs);
  const path = (p: string | undefined): string | undefined => (p === undefined ? undefined : resolve(input.cwd, p));

  const pollIntervalMs = sources.choose('copy.pollIntervalMs', [layers.pick(O.pollInterval), nova.pollIntervalMs],
    D.copy.pollIntervalMs);
  sources.record('copy.maxPollDelayMs', derivedSource('copy.pollIntervalMs'));
  const minPollDelayMs = Math.min(D.copy.minPollDelayMs, pollIntervalMs);
  sources.record('copy.minPollDelayMs', derivedSource(minPollDelayMs === D.copy.minPollDelayMs
    ? 'default' : 'copy.pollIntervalMs (shorter than the default first delay)'));
  const store = sources.chooseOptional('copy.store', [layers.pick(O.store), nova.storeName]);
  const timeoutMs = sources.choose('copy.timeoutMs', [capNoTimeout(layers.pick(O.timeout) ?? nova.copyTimeoutMs)],
    D.copy.timeoutMs);

  const confFile = path(sources.chooseOptional('ceph.confFile', [layers.pick(O.cephConf), nova.cephConf]));
  const cephUser = sources.chooseOptional('ceph.user', [layers.pick(O.rbdUser), nova.rbdUser]);
  const fsid = sources.chooseOptional('ceph.fsid', [layers.pick(O.fsid)]);
  const mapping = sources.chooseOptional('host.imagesTypeMapping', [layers.pick(O.imagesTypeMapping), nova.imagesTypeMapping]);
  const libvirtUri = sources.chooseOptional('host.libvirtUri', [nova.libvirtUri]);

  const explicitLevel = layers.pick(O.logLevel);
  const debug = sources.choose('log.debug', [layers.pick(O.debug)], D.log.debug);
  const level = explicitLevel?.value ?? (debug ? 'debug' : D.log.level);
  sources.record('log.level', explicitLevel?.source ?? derivedSource(debug ? 'log.debug' : 'default'));

  const config: FerryConfig = {
    auth,
    missingAuth: missing,
    endpoints,
    tls,
    copy: {
      ...(store === undefined ? {} : { store }),
      pollIntervalMs,
      minPollDelayMs,
      maxPollDelayMs: pollIntervalMs,
      timeoutMs,
      staleLockAfterMs: sources.choose('copy.staleLockAfterMs', [layers.pick(O.staleLockAfter)], D.copy.staleLockAfterMs),
      takeOverExpired: sources.choose('copy.takeOverExpired', [layers.pick(O.takeOverExpired)], D.copy.takeOverExpired),
      transfer: sources.choose('copy.transfer', [layers.pick(O.transfer)], D.copy.transfer),
      sourceCephConfs: resolveSourceConfs(sources, layers.pickAll(O.sourceCephConf), path),
      sourceRbdUser: sources.chooseOptional('copy.sourceRbdUser', [layers.pick(O.sourceRbdUser)]),
      rbdQuietMs: sources.choose('copy.rbdQuietMs', [layers.pick(O.rbdQuietTime)], D.copy.rbdQuietMs),
    },
    ceph: {
      ...(confFile === undefined ? {} : { confFile }),
      ...(cephUser === undefined ? {} : { user: cephUser }),
      pool: sources.choose('ceph.pool', [layers.pick(O.rbdPool), nova.rbdPool], D.ceph.pool),
      ...(fsid === undefined ? {} : { fsid }),
    },
    http: {
      requestTimeoutMs: sources.choose('http.requestTimeoutMs', [layers.pick(O.requestTimeout)], D.http.requestTimeoutMs),
      connectTimeoutMs: sources.choose('http.connectTimeoutMs', [layers.pick(O.connectTimeout)], D.http.connectTimeoutMs),
      retries: sources.choose('http.retries', [layers.pick(O.retries), nova.glanceNumRetries], D.http.retries),
    },
    host: {
      imagesType: sources.choose<ImagesType>('host.imagesType', [layers.pick(O.imagesType), nova.imagesType], D.host.imagesType),
      ...(mapping === undefined ? {} : { imagesTypeMapping: mapping }),
      useCowImages: sources.choose('host.useCowImages', [layers.pick(O.useCowImages), nova.useCowImages], D.host.useCowImages),
      forceRawImages: sources.choose('host.forceRawImages', [layers.pick(O.forceRawImages), nova.forceRawImages], D.host.forceRawImages),
      imageTypeExcludeList: sources.choose<readonly string[]>('host.imageTypeExcludeList', [layers.pick(O.imageTypeExcludeList), nova.imageTypeExcludeList],
        D.host.imageTypeExcludeList),
      virtType: sources.choose<VirtType>('host.virtType', [layers.pick(O.virtType), nova.virtType], D.host.virtType),
      swtpmEnabled: sources.choose('host.swtpmEnabled', [layers.pick(O.swtpm), nova.swtpmEnabled], D.host.swtpmEnabled),
      machineTypes: sources.choose('host.machineTypes', [nova.machineTypes], D.host.machineTypes),
      ...(libvirtUri === undefined ? {} : { libvirtUri }),
    },
    scheduler: {
      imageTypePrefilter: sources.choose('scheduler.imageTypePrefilter', [nova.imageTypePrefilter],
        D.scheduler.imageTypePrefilter),
      imageMetadataPrefilter: sources.choose('scheduler.imageMetadataPrefilter', [nova.imageMetadataPrefilter],
        D.scheduler.imageMetadataPrefilter),
    },
    log: { level, debug },
    origin: {
      ...(cloud === undefined ? {} : { cloud: cloud.name }),
      ...(cloud?.cloudsFile === undefined ? {} : { cloudsFile: cloud.cloudsFile }),
      ...(cloud?.secureFile === undefined ? {} : { secureFile: cloud.secureFile }),
      ...(novaConfFiles.length === 0 ? {} : { novaConfFiles }),
    },
    sources: {},
  };
  issues.throwIfAny();
  return deepFreeze({ ...config, sources: sources.toRecord() });
}

/** Read every nova.conf named, in order; an unreadable one is a problem named by the flag or variable that gave it. */
function readNovaFiles(given: readonly Sourced<string>[], cwd: string, readFile: (p: string) => string | undefined,
  issues: ConfigIssues): { paths: readonly string[]; values: NovaConfValues } {
  const files: NovaConfFile[] = [];
  for (const entry of given) {
    const { path: relative, optional } = parseNovaConfPath(entry.value);
    const path = resolve(cwd, relative);
    const text = readFile(path);
    if (text !== undefined) files.push({ path, text });
    else if (!optional) issues.add(entry.source, `${entry.source.label}: cannot read nova.conf '${path}' (missing or not readable; a file nova reads only when it exists is written -${path})`);
  }
  return { paths: files.map((file) => file.path), values: files.length === 0 ? {} : readNovaConfFiles(files, issues) };
}

/** nova's `images_rbd_glance_copy_timeout = 0` means "no timeout"; ferry always has a deadline, so 0 means the cap. */
function capNoTimeout(timeout: Sourced<number> | undefined): Sourced<number> | undefined {
  if (timeout === undefined || timeout.value !== 0) return timeout;
  const capS = D.copy.noTimeoutCapMs / 1000;
  return { value: D.copy.noTimeoutCapMs, source: { ...timeout.source, label: `${timeout.source.label} = 0 (no timeout: capped at ${capS} s)` } };
}

/**
 * Whether the environment holds OS_* settings beyond the selectors, which makes openstacksdk use them instead of a
 * lone cloud of clouds.yaml.
 */
function hasCredentialVariables(env: EnvValues): boolean {
  const selectors = new Set(['OS_CLOUD', 'OS_CLOUD_NAME', 'OS_REGION_NAME', 'OS_CLIENT_CONFIG_FILE', 'OS_CLIENT_SECURE_FILE']);
  return Object.entries(env).some(([name, value]) => name.startsWith('OS_') && value !== undefined && value !== ''
    && !selectors.has(name) && !/^OS_(TEST|STD|LOG)/.test(name));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Every STORE=PATH of the highest-ranked layer, merged in order (a store named twice: the last wins), paths made absolute. */
function resolveSourceConfs(sources: SourceLog, given: readonly Sourced<Readonly<Record<string, string>>>[],
  path: (p: string) => string | undefined): Readonly<Record<string, string>> {
  const first = given[0];
  if (first === undefined) return sources.choose('copy.sourceCephConfs', [], CONFIG_DEFAULTS.copy.sourceCephConfs);
  const merged: Record<string, string> = {};
  for (const pair of given) for (const [store, file] of Object.entries(pair.value)) merged[store] = path(file) ?? file;
  return sources.choose('copy.sourceCephConfs', [{ value: Object.freeze(merged), source: first.source }], CONFIG_DEFAULTS.copy.sourceCephConfs);
}
