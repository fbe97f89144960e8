// The static (load-time) imports of ferry's sources, read from the text: `import … from 'x'` and `export … from 'x'`,
// without `import type`/`export type` (erased by tsc) and without dynamic `import('x')` (loaded on demand).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
const STATIC = /^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

/** The specifiers a source file imports at load time (type-only imports left out). */
export function staticImports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(STATIC)].map((match) => match[1]!).filter((specifier) => specifier !== '');
}

/** A relative specifier as a path under the repository (`./x.js` from src/cli/a.ts → src/cli/x.ts). */
export function resolveSource(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return relative(ROOT, join(ROOT, dirname(from), specifier)).replace(/\.js$/, '.ts');
}

/** Every file and package a source file loads at start, transitively over static imports. */
export function staticClosure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const specifier of staticImports(file)) {
      const next = resolveSource(file, specifier);
      if (next !== undefined) visit(next);
      else if (!specifier.startsWith('node:')) packages.add(specifier.split('/')[0]!);
    }
  };
  visit(entry);
  return { files, packages };
}

const ANY_IMPORT = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
const LAZY_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * Every specifier a source file names in an import or re-export, type-only ones and lazy `import('x')` included: a
 * module loaded on demand is still one its importer depends on (a circle through a lazy import is still a circle).
 */
export function allImports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(ANY_IMPORT), ...text.matchAll(LAZY_IMPORT)].map((match) => match[1]!);
}
