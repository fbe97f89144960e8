/** How ferry proves who it is: the three Keystone methods it supports (config/ resolves these from flags/env/files). */
export type AuthMethod = PasswordAuth | ApplicationCredentialAuth | TokenAuth;

export interface NameOrId {
  readonly id?: string | undefined;
  readonly name?: string | undefined;
}

export interface PasswordAuth {
  readonly method: 'password';
  readonly authUrl: string;
  readonly username: string;
  readonly password: string;
  readonly userDomain: NameOrId;
  readonly project: NameOrId & { readonly domain: NameOrId };
}

export interface ApplicationCredentialAuth {
  readonly method: 'application_credential';
  readonly authUrl: string;
  readonly id?: string | undefined;
  readonly name?: string | undefined;
  /** With `name`, the credential's owner. */
  readonly user?: (NameOrId & { readonly domain: NameOrId }) | undefined;
  readonly secret: string;
}

/** A pre-issued token; with explicit endpoints no Keystone call is made at all. */
export interface TokenAuth {
  readonly method: 'token';
  readonly token: string;
  readonly authUrl?: string | undefined;
}
