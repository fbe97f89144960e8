import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findCycles, folderOf, importGraph, sourceFiles, upwardImports } from '../../helpers/import-graph.js';
import { allImports } from '../../helpers/static-imports.js';

// The layers of src/, top to bottom (docs/architecture.md). An import goes down, never up, never sideways to a folder
// of the same rank, never in a circle. Folders on one line share a rank: peers (the verbs sync/, evict/ and prewarm/),
// none may import another; sync is composed with the other two above them (cli/, index.ts) through fleet/fleet-verb.
const LAYERS: readonly (readonly string[])[] = [
  ['(root)'], // src/index.ts: the library API re-exports every layer
  ['cli'],
  ['agent'],
  ['host'],
  ['contract'],
  ['sync', 'evict', 'prewarm'],
  ['fleet'],
  ['copy'],
  ['cloud'],
  ['prefilter'],
  ['placement'],
  ['traits'],
  ['backend'],
  ['rbd'],
  ['glance'],
  ['config'],
  ['openstack'],
  ['metrics'],
  ['wait'],
  ['logging'],
  ['clock'],
  ['errors'],
  ['process', 'concurrency'], // generic pieces that import nothing of ferry's: a child's environment, the keyed limiter
];
const RANKS = new Map(LAYERS.flatMap((folders, index) => folders.map((folder) => [folder, index] as const)));
const rank = (folder: string): number | undefined => RANKS.get(folder);

const files = sourceFiles('src');
const graph = importGraph(files);

describe('layering of src/', () => {
  it('every folder of src/ has its place in the layer order', () => {
    const folders = [...new Set(files.map(folderOf))].filter((folder) => folder !== 'types');
    expect(folders.filter((folder) => rank(folder) === undefined)).toEqual([]);
  });

  it('no module imports one from its own layer\'s peers or from a layer above it', () => {
    expect(upwardImports(graph, rank)).toEqual([]);
  });

  it('no import cycle, type-only and lazy import() included', () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it('no command module imports another command module (shared pieces have their own module)', () => {
    const commands = files.filter((file) => file.startsWith('src/cli/commands/'));
    const crossing = commands.flatMap((file) => (graph.get(file) ?? []).filter((target) => target.startsWith('src/cli/commands/'))
      .map((target) => `${file} → ${target}`));
    expect(crossing).toEqual([]);
  });

  it('host/ and agent/ take the fleet\'s model from fleet/, never from a verb (evict/, prewarm/, sync/)', () => {
    const verbs = files.filter((file) => file.startsWith('src/host/') || file.startsWith('src/agent/'))
      .flatMap((file) => (graph.get(file) ?? []).filter((target) => /^src\/(evict|prewarm|sync)\//.test(target)).map((target) => `${file} → ${target}`));
    expect(verbs).toEqual([]);
  });

  it('the agent imports nothing from the CLI', () => {
    const agentToCli = files.filter((file) => file.startsWith('src/agent/'))
      .flatMap((file) => (graph.get(file) ?? []).filter((target) => target.startsWith('src/cli/')));
    expect(agentToCli).toEqual([]);
  });

  it('docs/architecture.md draws the same layers, in the same order, peers on one line', () => {
    const doc = readFileSync('docs/architecture.md', 'utf8');
    const block = doc.slice(doc.indexOf('## Layers'), doc.indexOf('## Where one request goes'));
    // A layer's row: two spaces, its folder(s) (peers on one row), then what it holds; `index.ts` is the root's.
    const drawn = [...block.matchAll(/^ {2}((?:[a-z]+\/ )*[a-z]+\/|index\.ts) /gm)]
      .map((row) => row[1]!.trim().split(' ').map((folder) => (folder === 'index.ts' ? '(root)' : folder.slice(0, -1))));
    expect(drawn).toEqual(LAYERS);
  });

  it('the checks see a violation when there is one', () => {
    const bad = new Map(graph);
    bad.set('src/config/config-defaults.ts', ['src/copy/copy-engine.ts']);
    bad.set('src/copy/copy-engine.ts', ['src/config/config-defaults.ts']);
    expect(upwardImports(bad, rank)).toContain('src/config/config-defaults.ts → src/copy/copy-engine.ts (config → copy)');
    expect(findCycles(bad).some((cycle) => cycle.includes('src/config/config-defaults.ts'))).toBe(true);
    expect(upwardImports(new Map([['src/nowhere/x.ts', ['src/errors/ferry-error.ts']]]), rank)).toHaveLength(1);
    // Verbs side by side: sync/, evict/ and prewarm/ may not import each other; they take the model from fleet/ below.
    expect(upwardImports(new Map([['src/evict/x.ts', ['src/prewarm/y.ts']], ['src/prewarm/y.ts', ['src/evict/x.ts']]]), rank)).toHaveLength(2);
    expect(upwardImports(new Map([['src/sync/x.ts', ['src/evict/y.ts', 'src/prewarm/z.ts']]]), rank)).toHaveLength(2);
    expect(upwardImports(new Map([['src/fleet/x.ts', ['src/evict/y.ts']]]), rank)).toHaveLength(1);
    // A lazy import() is an edge: the registry's commands are loaded on demand, and are still its dependencies.
    expect(graph.get('src/cli/command-registry.ts')).toContain('src/cli/commands/ensure.ts');
    expect(allImports('src/cli/command-registry.ts')).toContain('./commands/ensure.js');
  });
});
