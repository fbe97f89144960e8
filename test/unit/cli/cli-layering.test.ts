import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCycles } from '../../helpers/import-graph.js';
import { allImports, resolveSource, staticImports } from '../../helpers/static-imports.js';

// The CLI layer stays thin: commands return data, renderers only render. No renderer imports a command module, not
// even for a type: report types and JSON shapes live in src/cli/reports/, shared flag readers in src/cli/inputs/. No
// load-time import cycle runs through src/cli.
const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
  .flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));
const cliFiles = files('src/cli');
const edges = (imports: (file: string) => string[]): Map<string, string[]> => new Map(cliFiles.map((file) =>
  [file, imports(file).flatMap((s) => resolveSource(file, s) ?? []).filter((f) => f.startsWith('src/cli/'))]));
const graph = edges(staticImports);
const typeGraph = edges(allImports);
const rendererToCommand = (g: Map<string, string[]>): string[] => cliFiles.filter((f) => f.startsWith('src/cli/render/') || f.startsWith('src/cli/output/'))
  .flatMap((file) => (g.get(file) ?? []).filter((target) => target.startsWith('src/cli/commands/'))
    .map((target) => `${file} → ${target}`)).sort();

/** Load-time cycles of the CLI's own graph (static imports only: a lazy import() is not an edge). */
const cycles = (): string[][] => findCycles(graph);

describe('CLI layering', () => {
  it('cli: has commands and renderers to check', () => {
    expect(cliFiles.filter((f) => f.startsWith('src/cli/render/')).length).toBeGreaterThan(5);
    expect(cliFiles.filter((f) => f.startsWith('src/cli/commands/')).length).toBeGreaterThan(5);
  });

  it('cli: no renderer loads a command module', () => {
    expect(rendererToCommand(graph)).toEqual([]);
  });

  it('cli: no type-only import from a renderer into a command module either', () => {
    expect(rendererToCommand(typeGraph)).toEqual([]);
  });

  it('cli: no load-time import cycle through src/cli (lazy import() is not an edge)', () => {
    expect(cycles()).toEqual([]);
  });

  it('cycles: the check sees a cycle when there is one', () => {
    graph.set('src/cli/render/ensure.ts', [...(graph.get('src/cli/render/ensure.ts') ?? []), 'src/cli/commands/ensure.ts']);
    expect(cycles().some((cycle) => cycle.includes('src/cli/render/ensure.ts'))).toBe(true);
    graph.set('src/cli/render/ensure.ts', (graph.get('src/cli/render/ensure.ts') ?? []).filter((f) => f !== 'src/cli/commands/ensure.ts'));
  });
});
