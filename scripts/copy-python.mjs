#!/usr/bin/env node
// Copies ferry's Python programs (src/**/*.py) beside the modules tsc emitted into dist/, where the library reads them
// (src/rbd/python-program.ts); scripts/bundle-cli.mjs embeds the same copies into the CLI bundle. tsc copies no .py.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function pythonFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__pycache__' ? [] : pythonFiles(path);
    return entry.name.endsWith('.py') ? [path] : [];
  });
}

for (const file of pythonFiles(join(root, 'src'))) {
  const target = join(root, 'dist', relative(join(root, 'src'), file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}
