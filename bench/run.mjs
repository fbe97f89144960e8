#!/usr/bin/env node
// `npm run bench [-- NAME… [--flag value…]]`: runs the benchmarks in bench/*.ts one after another with tsx.
// - No NAME: every bench/*.ts (pure ones first, then those that need the dev cloud).
// - NAME (e.g. `ensure-latency`, or `ensure-` for all three ensure benches): the script of that name, else the scripts
//   whose name starts with it (`transfer` runs transfer.ts only, not transfer-sites.ts).
// - Anything from the first `--flag` on is passed to every selected script (`npm run bench -- ensure-latency --copies 10`).
// Benchmarks run sequentially: they share a 2-core machine with the dev cloud and would disturb each other.
// Exit code: 1 when any script failed (a missed goal counts), after running all of them.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = join(benchDir, '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');

const argv = process.argv.slice(2);
const firstFlag = argv.findIndex((arg) => arg.startsWith('--'));
const names = firstFlag < 0 ? argv : argv.slice(0, firstFlag);
const passThrough = firstFlag < 0 ? [] : argv.slice(firstFlag);

const needsCloud = (file) => file.startsWith('ensure-') || file.startsWith('agent-');
const all = readdirSync(benchDir)
  .filter((file) => file.endsWith('.ts'))
  .sort((a, b) => Number(needsCloud(a)) - Number(needsCloud(b)) || a.localeCompare(b));
// A name that is a bench's whole name picks that bench only (`transfer` is not also `transfer-sites`); else a prefix.
const picks = (name, file) => (all.includes(`${name}.ts`) ? file === `${name}.ts` : file.startsWith(name));
const selected = names.length === 0 ? all : all.filter((file) => names.some((name) => picks(name, file)));
const unknown = names.filter((name) => !all.some((file) => file.startsWith(name)));
if (unknown.length > 0 || selected.length === 0) {
  console.error(`bench: no benchmark named ${unknown.join(', ') || names.join(', ')}; there are: ${all.map((f) => f.slice(0, -3)).join(', ')}`);
  process.exit(2);
}

const outcomes = [];
for (const file of selected) {
  console.error(`\n=== ${file} ${passThrough.join(' ')}`);
  const started = Date.now();
  const run = spawnSync(tsx, [join(benchDir, file), ...passThrough], { cwd: root, stdio: 'inherit' });
  const code = run.status ?? (run.signal ? 128 : 1);
  outcomes.push({ file, code, seconds: Math.round((Date.now() - started) / 100) / 10 });
  if (run.signal === 'SIGINT') break;
}

console.error('\n=== summary');
for (const { file, code, seconds } of outcomes) console.error(`${code === 0 ? 'ok    ' : 'FAILED'} ${file} (${seconds} s)`);
process.exitCode = outcomes.every((o) => o.code === 0) ? 0 : 1;
