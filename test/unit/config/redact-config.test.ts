import { describe, expect, it } from 'vitest';
import { REDACTED, redactConfig } from '../../../src/config/redact-config.js';
import { FIXTURE_FILES, resolveWith } from './config-fixtures.js';

describe('redactConfig', () => {
  it.each([
    { cloud: 'central', secret: 'Admin#Secret' },
    { cloud: 'site-b-appcred', secret: '5d30n-1mPY4c-fixture-secret' },
    { cloud: 'token-direct', secret: 'gAAAAABrAeYkT4sCsqwgG-fixture-token' },
  ])('redactConfig: hides the secret of cloud $cloud and keeps the rest', ({ cloud, secret }) => {
    const config = resolveWith({ flags: { 'os-cloud': cloud }, files: FIXTURE_FILES });
    const shown = JSON.stringify(redactConfig(config));
    expect(shown).not.toContain(secret);
    expect(shown).toContain(REDACTED);
    expect(redactConfig(config).endpoints).toEqual(config.endpoints);
  });

  it('redactConfig: without credentials the config is unchanged', () => {
    const config = resolveWith();
    expect(redactConfig(config)).toBe(config);
  });
});
