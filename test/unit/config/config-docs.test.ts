// Contract: the operator pages name every option the code reads, so the docs cannot fall behind the code.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_OPTIONS } from '../../../src/config/config-options.js';
import { NOVA_CONF_OPTIONS } from '../../../src/config/nova-conf-options.js';

const DOCS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs');
const configuration = readFileSync(join(DOCS, 'configuration.md'), 'utf8');
const novaConf = readFileSync(join(DOCS, 'nova-conf.md'), 'utf8');

const specs = Object.values(CONFIG_OPTIONS);
const flags = specs.flatMap((s) => (s.flag === undefined ? [] : [`--${s.flag}`]));
const variables = specs.flatMap((s) => s.env ?? []);
const cloudsKeys = specs.flatMap((s) => [...(s.clouds ?? []), ...(s.cloudsNegated ?? [])]);
const novaOptions = Object.values(NOVA_CONF_OPTIONS).map((o) => `[${o.section}] ${o.option}`);

describe('configuration docs', () => {
  it.each(flags)('docs/configuration.md lists the flag %s', (flag) => {
    expect(configuration).toContain(`\`${flag}`);
  });

  it.each(variables)('docs/configuration.md lists the variable %s', (variable) => {
    expect(configuration).toContain(`\`${variable}\``);
  });

  it.each([...new Set(cloudsKeys)])('docs/configuration.md lists the clouds.yaml key %s', (key) => {
    expect(configuration).toContain(`\`${key}\``);
  });

  it.each(novaOptions)('docs/nova-conf.md documents %s', (option) => {
    expect(novaConf).toContain(`\`${option}\``);
  });
});
