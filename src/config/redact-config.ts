import type { FerryConfig } from './ferry-config.js';

export const REDACTED = '<hidden>';

/**
 * The configuration with every secret (password, application-credential secret, token) replaced, for
 * `ferry config show`, logs and bug reports. A plain JSON-safe object.
 */
export function redactConfig(config: FerryConfig): FerryConfig {
  const { auth } = config;
  if (auth === undefined) return config;
  switch (auth.method) {
    case 'password':
      return { ...config, auth: { ...auth, password: REDACTED } };
    case 'application_credential':
      return { ...config, auth: { ...auth, secret: REDACTED } };
    case 'token':
      return { ...config, auth: { ...auth, token: REDACTED } };
  }
}
