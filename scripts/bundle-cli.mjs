#!/usr/bin/env node
// Bundles the CLI (dist/cli/main.js, after tsc) into dist/ferry-cli/: one entry plus chunks, one per command and per
// shared part, so `ferry --version` reads four small files and `ferry ensure` a handful instead of ~450 modules
// (undici, zod and yaml alone are ~280 files; bench/startup.ts). Dynamic imports stay dynamic: a command's chunk
// loads only when that command runs. The library (dist/index.js) is not bundled.
// ferry's Python programs are embedded as text (FERRY_EMBEDDED_PYTHON, read by src/rbd/python-program.ts), from the
// copies scripts/copy-python.mjs put into dist/rbd/python/: the bundle reads no .py file.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'ferry-cli');

// zod re-exports all of its ~60 message locales (`z.locales`, 370 kB of the 750 kB zod chunk) and uses only English,
// which it imports by its own path; ferry never switches locale. Parsing them cost every command ~10 ms.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (args.importer.includes(`${join('node_modules', 'zod')}`)
      ? { path: join(root, 'scripts', 'zod-locales-en.mjs') } : undefined));
  },
};
const pythonDir = join(root, 'dist', 'rbd', 'python');
const python = Object.fromEntries(readdirSync(pythonDir).filter((name) => name.endsWith('.py'))
  .map((name) => [name.slice(0, -'.py'.length), readFileSync(join(pythonDir, name), 'utf8')]));

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [join(root, 'dist', 'cli', 'main.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  plugins: [zodEnglishOnly],
  define: { FERRY_EMBEDDED_PYTHON: JSON.stringify(python) },
  // CommonJS dependencies (pino, yaml's helpers) call require() for Node's built-ins; ESM output has none.
  banner: { js: "import { createRequire as __ferryCreateRequire } from 'node:module'; const require = __ferryCreateRequire(import.meta.url);" },
});
