// How ferry authenticates to Keystone: the resolved credentials config/ builds and the session uses.

/** A Keystone domain, by id or by name (an id is exact, so it wins when both are given). */
export type DomainRef =
  | { readonly id: string; readonly name?: undefined }
  | { readonly name: string; readonly id?: undefined };

/** The project to scope a password token to. With an id, `domain` is informational (Keystone ignores it). */
export type ProjectRef = (
  | { readonly id: string; readonly name?: undefined }
  | { readonly name: string; readonly id?: undefined }
) & { readonly domain: DomainRef };

export interface PasswordAuthConfig {
  readonly method: 'password';
  readonly authUrl: string;
  readonly username: string;
  readonly password: string;
  readonly userDomain: DomainRef;
  readonly project: ProjectRef;
}

/** An application credential carries its own project: no scope is ever sent with it (keystone.md §6.2). */
export type ApplicationCredentialAuthConfig = {
  readonly method: 'application_credential';
  readonly authUrl: string;
  readonly secret: string;
} & (
  | { readonly id: string; readonly name?: undefined; readonly user?: undefined }
  | { readonly name: string; readonly id?: undefined; readonly user: { readonly name: string; readonly domain: DomainRef } }
);

/** A pre-issued token. Without `authUrl` every service needs an explicit endpoint (no catalog to read). */
export interface TokenAuthConfig {
  readonly method: 'token';
  readonly token: string;
  readonly authUrl?: string;
}

export type AuthConfig = PasswordAuthConfig | ApplicationCredentialAuthConfig | TokenAuthConfig;
export type AuthMethodName = AuthConfig['method'];
