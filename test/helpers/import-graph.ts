// The import graph of src/, read from the text of every source file: each edge is one `import … from './x.js'` or
// `export … from`, type-only imports included (a type import is still a dependency a reader follows).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allImports, resolveSource } from './static-imports.js';

export type ImportGraph = Map<string, string[]>;

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [join(dir, entry.name)] : []));
}

/** src/copy/ensure.ts → `copy`; src/index.ts → `(root)`. */
export function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1]! : '(root)';
}

export function importGraph(files: readonly string[], imports: (file: string) => string[] = allImports): ImportGraph {
  return new Map(files.map((file) => [file, imports(file).flatMap((specifier) => resolveSource(file, specifier) ?? [])]));
}

/** Every cycle the graph holds, each as the files on it (the first one again at the end). */
export function findCycles(graph: ImportGraph): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      found.push([...path.slice(path.indexOf(file)), file]);
      return;
    }
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  return found;
}

/** The edges that go from a folder to one at the same rank or above it (`rank`: top = 0), named `a.ts → b.ts (x → y)`. */
export function upwardImports(graph: ImportGraph, rank: (folder: string) => number | undefined): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const from = folderOf(file);
      const to = folderOf(target);
      if (from === to) continue;
      const a = rank(from);
      const b = rank(to);
      if (a === undefined || b === undefined || b <= a) found.push(`${file} → ${target} (${from} → ${to})`);
    }
  }
  return found.sort();
}

export function readText(file: string): string {
  return readFileSync(file, 'utf8');
}
