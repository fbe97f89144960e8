import { describe, expect, it } from 'vitest';
import { parseSyncPolicy } from '../../../src/fleet/parse-sync-policy.js';

const valid = `# edge images
version: 1
placements:
  - name: golden everywhere
    images:
      tag: golden
      visibility: public
    stores: [site-a, site-b]
  - images:
      names: [cirros-raw]
      ids: [3f1c2a9e-5b7d-4c1e-9a8f-0d2e4b6c8a10]
    stores:
      - site-b
  - images:
      properties:
        os_distro: ubuntu
        os_version: 22.10
    stores: [site-a]
  - images: { all: true, visibility: all }
    stores: [central]
`;

describe('parseSyncPolicy', () => {
  it('parseSyncPolicy: a valid policy becomes placements with selections, stores and positions', () => {
    const policy = parseSyncPolicy(valid, 'edge.yaml');
    expect(policy.source).toBe('edge.yaml');
    expect(policy.placements.map((p) => [p.name, p.selection, p.stores])).toEqual([
      ['golden everywhere', { tag: 'golden', visibility: 'public' }, ['site-a', 'site-b']],
      ['placement 2', { images: ['3f1c2a9e-5b7d-4c1e-9a8f-0d2e4b6c8a10', 'cirros-raw'] }, ['site-b']],
      // the failsafe schema keeps 22.10 as written (YAML's float would make it 22.1)
      ['placement 3', { properties: { os_distro: 'ubuntu', os_version: '22.10' } }, ['site-a']],
      ['placement 4', { all: true, visibility: 'all' }, ['central']],
    ]);
    expect(policy.placements[0]?.storePositions).toEqual([{ line: 8, column: 14 }, { line: 8, column: 22 }]);
    expect(policy.placements[1]?.storePositions).toEqual([{ line: 13, column: 9 }]);
  });

  it.each([
    { title: 'a YAML syntax error', text: 'version: 1\nplacements: [\n', message: /^edge\.yaml:3:1: .*Flow sequence/ },
    { title: 'a duplicate key', text: 'version: 1\nversion: 1\n', message: /^edge\.yaml:2:1: Map keys must be unique/ },
    { title: 'an empty file', text: '', message: /^edge\.yaml: version: the only policy version is 1/ },
    { title: 'a wrong version', text: 'version: 2\nplacements: []\n', message: /^edge\.yaml:1:10: version: the only policy version is 1/ },
    { title: 'no placements', text: 'version: 1\nplacements: []\n', message: /^edge\.yaml:2:13: placements: list at least one placement/ },
    { title: 'an unknown top-level field', text: 'version: 1\nplacement: []\n', message: /^edge\.yaml:2:1: placement: unknown field 'placement'/ },
    { title: 'an unknown field in a placement', text: 'version: 1\nplacements:\n  - images: {tag: g}\n    stores: [a]\n    store: [b]\n',
      message: /^edge\.yaml:5:5: placements\[0\]\.store: unknown field 'store'/ },
    { title: 'a bad store name', text: 'version: 1\nplacements:\n  - images: {tag: g}\n    stores: [site-a, "site b"]\n',
      message: /^edge\.yaml:4:22: placements\[0\]\.stores\[1\]: a store name is letters, digits/ },
    { title: 'no stores', text: 'version: 1\nplacements:\n  - images: {tag: g}\n    stores: []\n',
      message: /^edge\.yaml:4:13: placements\[0\]\.stores: list at least one store/ },
    { title: 'a selector mixing names and a tag', text: 'version: 1\nplacements:\n  - images: {tag: g, names: [x]}\n    stores: [a]\n',
      message: /^edge\.yaml:3:13: placements\[0\]\.images: select images one way/ },
    { title: 'an empty selector', text: 'version: 1\nplacements:\n  - images: {}\n    stores: [a]\n',
      message: /placements\[0\]\.images: select images with ids\/names, or tag\/properties, or all: true/ },
    { title: 'visibility with names', text: 'version: 1\nplacements:\n  - images: {names: [x], visibility: public}\n    stores: [a]\n',
      message: /^edge\.yaml:3:38: placements\[0\]\.images\.visibility: visibility filters a listing/ },
    { title: 'a bad visibility', text: 'version: 1\nplacements:\n  - images: {tag: g, visibility: everyone}\n    stores: [a]\n',
      message: /placements\[0\]\.images\.visibility: must be one of public, private, shared, community, all/ },
    { title: 'all: false', text: 'version: 1\nplacements:\n  - images: {all: false}\n    stores: [a]\n',
      message: /placements\[0\]\.images\.all: all takes only true/ },
    { title: 'a property without a value', text: 'version: 1\nplacements:\n  - images:\n      properties: {os_distro: ""}\n    stores: [a]\n',
      message: /^edge\.yaml:4:31: placements\[0\]\.images\.properties\.os_distro: must not be empty/ },
    { title: 'a bad budget', text: 'version: 1\nstores:\n  site-b: {budget: 5 gigs, ceph_conf: /etc/ceph/b.conf}\nusage: [{keep_most_used: "3"}]\n',
      message: /^edge\.yaml:3:20: stores\.site-b\.budget: must be bytes or a percentage/ },
    { title: 'a budget without its cluster', text: 'version: 1\nstores:\n  site-b: {budget: 80%}\nusage: [{keep_most_used: "3"}]\n',
      message: /stores\.site-b\.ceph_conf: a budget needs the store's cluster: name its ceph\.conf/ },
    { title: 'a bad usage measure', text: 'version: 1\nusage:\n  - {keep_most_used: "3", by: reads, stores: [site-b]}\n',
      message: /usage\[0\]\.by: must be one of clones, boots/ },
    { title: 'keep_most_used 0', text: 'version: 1\nusage:\n  - {keep_most_used: "0", stores: [site-b]}\n',
      message: /usage\[0\]\.keep_most_used: must be a whole number from 1/ },
    { title: 'a usage rule without stores anywhere', text: 'version: 1\nusage:\n  - {keep_most_used: "3"}\n',
      message: /usage\[0\]\.stores: name the stores, here or in stores:/ },
    { title: 'neither placements nor usage', text: 'version: 1\nstores:\n  site-b: {budget: 80%, ceph_conf: /etc/ceph/b.conf}\n',
      message: /placements: list at least one placement \(or a usage rule\)/ },
  ])('parseSyncPolicy: $title → FERRY_INVALID_CONFIG naming line, column and field', ({ text, message }) => {
    expect(() => parseSyncPolicy(text, 'edge.yaml')).toThrow(message);
    expect(() => parseSyncPolicy(text, 'edge.yaml')).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_CONFIG' }));
  });

  it('parseSyncPolicy: stores: and usage: become budgets, durations in ms, clusters, and rules defaulting to stores:\' stores', () => {
    const policy = parseSyncPolicy(`version: 1
stores:
  site-b: {budget: 80%, budget_of: cluster, idle: 2d, grace: 45s, ceph_conf: /etc/ceph/site-b.conf, rbd_user: ferry}
usage:
  - {keep_most_used: '5', by: boots, days: '14'}
`, 'edge.yaml');
    expect(policy.placements).toEqual([]);
    expect(policy.stores.get('site-b')).toEqual({ store: 'site-b', position: { line: 3, column: 3 },
      budget: { kind: 'percent', percent: 80, of: 'cluster', text: '80%' }, idleMs: 2 * 86_400_000, graceMs: 45_000,
      cluster: { confFile: '/etc/ceph/site-b.conf', user: 'ferry', pool: undefined } });
    expect(policy.usage).toEqual([{ name: 'usage rule 1', keepMostUsed: 5, by: 'boots', days: 14, stores: ['site-b'], position: { line: 5, column: 5 } }]);
  });
});
