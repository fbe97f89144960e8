import { CONFIG_DEFAULTS } from './config-defaults.js';
import type { ConfigLayers } from './config-layers.js';
import type { AUTH_TYPES} from './config-options.js';
import { CONFIG_OPTIONS, type ConfigOptionSpec } from './config-options.js';
import { DEFAULT_SOURCE, derivedSource, type ConfigSource, type Sourced } from './config-source.js';
import type { AuthConfig, AuthMethodName, DomainRef, MissingAuthPiece } from './ferry-config.js';
import type { SourceLog } from './source-log.js';

const O = CONFIG_OPTIONS;

/** Every option that says something about credentials: if none is set, there simply are no credentials. */
const AUTH_OPTIONS = [O.authType, O.authUrl, O.username, O.password, O.projectName, O.projectId, O.userDomainName,
  O.userDomainId, O.projectDomainName, O.projectDomainId, O.appCredId, O.appCredName, O.appCredSecret, O.token];

const METHOD_OF_AUTH_TYPE = {
  password: 'password', v3password: 'password', v3applicationcredential: 'application_credential',
  token: 'token', v3token: 'token',
} as const satisfies Record<(typeof AUTH_TYPES)[number], AuthMethodName>;

export interface ResolvedAuth {
  readonly auth: AuthConfig | undefined;
  readonly missing: readonly MissingAuthPiece[];
}

/**
 * Credentials from flags > environment > clouds.yaml, merged key by key as the openstack CLI does. Missing pieces
 * are not an error here (many commands need no cloud); requireAuth turns them into one. Sources are recorded only
 * for complete credentials.
 */
export function resolveAuth(layers: ConfigLayers, sources: SourceLog): ResolvedAuth {
  const method = chooseMethod(layers);
  const authUrl = layers.pick(O.authUrl);
  const given = AUTH_OPTIONS.some((spec) => layers.has(spec));

  if (method.value === 'token') {
    const token = layers.pick(O.token);
    if (token === undefined) return incomplete(given, [piece('token', O.token)]);
    record(sources, [['auth.method', method], ['auth.token', token], ['auth.authUrl', authUrl]]);
    return complete({ method: 'token', token: token.value, ...(authUrl ? { authUrl: authUrl.value } : {}) });
  }

  if (method.value === 'application_credential') {
    const secret = layers.pick(O.appCredSecret);
    const credential = layers.pickPair(O.appCredId, O.appCredName);
    const username = credential?.by === 'name' ? layers.pick(O.username) : undefined;
    const missing = [
      ...(authUrl ? [] : [piece('auth URL', O.authUrl)]),
      ...(credential ? [] : [piece('application credential id or name', O.appCredId, O.appCredName)]),
      ...(credential?.by === 'name' && !username ? [piece('user name (owner of the application credential)', O.username)] : []),
      ...(secret ? [] : [piece('application credential secret', O.appCredSecret)]),
    ];
    if (!authUrl || !credential || !secret || missing.length > 0) return incomplete(given, missing);
    record(sources, [['auth.method', method], ['auth.authUrl', authUrl], ['auth.secret', secret]]);
    if (credential.by === 'id' || username === undefined) {
      sources.record('auth.id', credential.source);
      return complete({ method: 'application_credential', authUrl: authUrl.value, secret: secret.value, id: credential.value });
    }
    const domain = domainOf(layers.pickPair(O.userDomainId, O.userDomainName), 'auth.user.domain', sources);
    record(sources, [['auth.name', credential], ['auth.user', username]]);
    return complete({ method: 'application_credential', authUrl: authUrl.value, secret: secret.value,
      name: credential.value, user: { name: username.value, domain } });
  }

  const username = layers.pick(O.username);
  const password = layers.pick(O.password);
  const project = layers.pickPair(O.projectId, O.projectName);
  const missing = [
    ...(authUrl ? [] : [piece('auth URL', O.authUrl)]),
    ...(username ? [] : [piece('user name', O.username)]),
    ...(password ? [] : [piece('password', O.password)]),
    ...(project ? [] : [piece('project name or id', O.projectName, O.projectId)]),
  ];
  if (!authUrl || !username || !password || !project) return incomplete(given, missing);
  record(sources, [['auth.method', method], ['auth.authUrl', authUrl], ['auth.username', username],
    ['auth.password', password], ['auth.project', project]]);
  const userDomain = domainOf(layers.pickPair(O.userDomainId, O.userDomainName), 'auth.userDomain', sources);
  const projectDomain = domainOf(layers.pickPair(O.projectDomainId, O.projectDomainName), 'auth.project.domain', sources);
  return complete({
    method: 'password', authUrl: authUrl.value, username: username.value, password: password.value, userDomain,
    project: project.by === 'id' ? { id: project.value, domain: projectDomain } : { name: project.value, domain: projectDomain },
  });
}

/**
 * An explicit auth type wins. Otherwise, like osc-lib: an application-credential secret, id or name means
 * v3applicationcredential; a token without a password means token; anything else is password.
 */
function chooseMethod(layers: ConfigLayers): Sourced<AuthMethodName> {
  const explicit = layers.pick(O.authType);
  if (explicit !== undefined) return { value: METHOD_OF_AUTH_TYPE[explicit.value], source: explicit.source };
  const credential = layers.pick(O.appCredSecret) ?? layers.pick(O.appCredId) ?? layers.pick(O.appCredName);
  if (credential !== undefined) {
    return { value: 'application_credential', source: derivedSource(`inferred from ${credential.source.label}`) };
  }
  const token = layers.pick(O.token);
  if (token !== undefined && !layers.has(O.password)) {
    return { value: 'token', source: derivedSource(`inferred from ${token.source.label}`) };
  }
  const password = layers.pick(O.password);
  return { value: 'password', source: password ? derivedSource(`inferred from ${password.source.label}`) : DEFAULT_SOURCE };
}

function domainOf(pair: { by: 'id' | 'name'; value: string; source: ConfigSource } | undefined, key: string,
  sources: SourceLog): DomainRef {
  if (pair === undefined) {
    sources.record(key, DEFAULT_SOURCE);
    return { id: CONFIG_DEFAULTS.auth.defaultDomainId };
  }
  sources.record(key, pair.source);
  return pair.by === 'id' ? { id: pair.value } : { name: pair.value };
}

function record(sources: SourceLog, entries: readonly (readonly [string, { source: ConfigSource } | undefined])[]): void {
  for (const [key, value] of entries) if (value !== undefined) sources.record(key, value.source);
}

function complete(auth: AuthConfig): ResolvedAuth {
  return { auth, missing: [] };
}

/** With nothing given at all, the whole password set is "missing" (requireAuth also names the other methods). */
function incomplete(given: boolean, missing: readonly MissingAuthPiece[]): ResolvedAuth {
  return {
    auth: undefined,
    missing: given ? missing : [piece('auth URL', O.authUrl), piece('user name', O.username),
      piece('password', O.password), piece('project name or id', O.projectName, O.projectId)],
  };
}

/** Each way to give a piece: its flags, then its variables, then its clouds.yaml keys. */
function piece(what: string, ...specs: readonly ConfigOptionSpec<unknown>[]): MissingAuthPiece {
  return {
    what,
    ways: [
      ...specs.flatMap((s) => (s.flag === undefined ? [] : [`--${s.flag}`])),
      ...specs.flatMap((s) => s.env ?? []),
      ...specs.flatMap((s) => (s.clouds ?? []).slice(0, 1).map((k) => `clouds.yaml ${k}`)),
    ],
  };
}
