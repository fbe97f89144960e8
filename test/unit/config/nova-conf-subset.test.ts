import { describe, expect, it } from 'vitest';
import { ConfigIssues } from '../../../src/config/config-issues.js';
import { NOVA_CONF_OPTIONS } from '../../../src/config/nova-conf-options.js';
import { novaConfSubset } from '../../../src/config/nova-conf-subset.js';
import { readNovaConfFiles, type NovaConfFile, type NovaConfValues } from '../../../src/config/read-nova-conf.js';
import { configFixture, NOVA_COMPUTE_CONF, NOVA_CONF } from './config-fixtures.js';

const EDGE: readonly NovaConfFile[] = [
  { path: NOVA_CONF, text: configFixture('nova-compute-edge.conf') },
  { path: NOVA_COMPUTE_CONF, text: configFixture('nova-compute-edge-compute.conf') },
];

/** The values ferry reads, without their sources (those name the file read, which differs on purpose). */
function valuesOf(files: readonly NovaConfFile[]): Record<string, unknown> {
  const issues = new ConfigIssues();
  const values: NovaConfValues = readNovaConfFiles(files, issues);
  expect(issues.count).toBe(0);
  return Object.fromEntries(Object.entries(values).map(([id, sourced]) => [id, sourced?.value]));
}

function subsetText(files: readonly NovaConfFile[]): string {
  const subset = novaConfSubset(files);
  if (!subset.ok) throw new Error(`refused: ${JSON.stringify(subset)}`);
  return subset.text;
}

describe('novaConfSubset', () => {
  it('ferry reads from the subset exactly the values it reads from nova.conf + nova-compute.conf', () => {
    const text = subsetText(EDGE);
    const fromSubset = valuesOf([{ path: '/run/ferry-agent/nova.conf', text }]);
    expect(fromSubset).toEqual(valuesOf(EDGE));
    // The fixture sets most of them: the comparison covers continuation lines, repeated sections and the later file.
    expect(Object.keys(fromSubset).length).toBeGreaterThanOrEqual(20);
    expect(fromSubset).toMatchObject({ pollIntervalMs: 5_000, glanceValidInterfaces: ['internal', 'public'], virtType: 'qemu' });
  });

  it('copies none of nova\'s secrets or other options: only keys of NOVA_CONF_OPTIONS, each after the comment naming its origin', () => {
    const text = subsetText(EDGE);
    for (const secret of ['Rabbit#Pass', 'Nova#Service', 'Placement#Secret', 'transport_url', 'password', 'username', 'rbd_secret_uuid',
      'auth_url', 'never_download_image_if_on_rbd', 'compute_driver', 'my_ip']) {
      expect(text).not.toContain(secret);
    }
    const known = new Set(Object.values(NOVA_CONF_OPTIONS).map((spec) => spec.option));
    const keys = text.split('\n').filter((line) => /^[^#[\s]/.test(line)).map((line) => line.split(/\s*[=:]/)[0]);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(known, key).toContain(key);
    expect(text).toContain(`# ${NOVA_CONF} line 39\nvalid_interfaces = internal,\n    public\n`);
    expect(text).toContain(`# ${NOVA_COMPUTE_CONF} line 13\nimages_rbd_glance_copy_poll_interval = 5\n`);
  });

  it('keeps the files in their order, so the later file still wins per option', () => {
    const text = subsetText(EDGE);
    expect(text.indexOf('images_rbd_glance_copy_poll_interval = 10')).toBeLessThan(text.indexOf('images_rbd_glance_copy_poll_interval = 5'));
  });

  it('refuses a file oslo.config cannot parse, naming the file and line but never the line', () => {
    const subset = novaConfSubset([{ path: NOVA_CONF, text: '[database]\nconnection = mysql://nova:Db#Secret@db/nova\n  continued\n\n  stray\n' }]);
    expect(subset).toEqual({ ok: false, path: NOVA_CONF, line: 5, reason: 'a continuation line (it starts with a space or tab) follows no option' });
    expect(JSON.stringify(subset)).not.toContain('Secret');
  });

  it('a nova.conf with none of ferry\'s options gives a subset ferry reads as setting nothing', () => {
    const subset = novaConfSubset([{ path: NOVA_CONF, text: '[database]\nconnection = mysql://nova:secret@db/nova\n' }]);
    expect(subset).toMatchObject({ ok: true, options: 0 });
    expect(subset.ok && subset.text).not.toContain('secret');
  });
});
