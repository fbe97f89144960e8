import type { AuthConfig } from './auth-config.js';

interface NameOrId {
  readonly id?: string | undefined;
  readonly name?: string | undefined;
}

/** The body of `POST /v3/auth/tokens` for a password or application-credential method (reference/keystone.md §6). */
export function keystoneTokenRequest(auth: Exclude<AuthConfig, { method: 'token' }>): unknown {
  if (auth.method === 'password') {
    return {
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { name: auth.username, domain: nameOrId(auth.userDomain), password: auth.password } },
        },
        scope: { project: { ...nameOrId(auth.project), ...(auth.project.id ? {} : { domain: nameOrId(auth.project.domain) }) } },
      },
    };
  }
  // Application credentials carry their own project: Keystone answers 401 if a scope is sent.
  const credential = auth.id
    ? { id: auth.id, secret: auth.secret }
    : { name: auth.name, secret: auth.secret, user: auth.user ? { ...nameOrId(auth.user), domain: nameOrId(auth.user.domain) } : undefined };
  return { auth: { identity: { methods: ['application_credential'], application_credential: credential } } };
}

/** Keystone takes a name or an id; an id is exact, so it wins. */
function nameOrId(value: NameOrId): { id: string } | { name: string } {
  if (value.id) return { id: value.id };
  return { name: value.name ?? 'Default' };
}

/** `http://host:5000`, `…/v3`, `…/v3/` all mean the same Keystone: normalise to the v3 root. */
export function keystoneV3Url(authUrl: string): string {
  const trimmed = authUrl.replace(/\/+$/, '');
  return /\/v3$/.test(trimmed) ? trimmed : `${trimmed}/v3`;
}

/** Who the credentials name, for messages (never the secret). */
export function describeAuth(auth: AuthConfig): string {
  switch (auth.method) {
    case 'password':
      return `user '${auth.username}' in project '${auth.project.name ?? auth.project.id ?? '?'}'`;
    case 'application_credential':
      return `application credential '${auth.id ?? auth.name ?? '?'}'`;
    case 'token':
      return 'the given token';
  }
}
