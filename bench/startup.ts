// Benchmark: start-up of the built CLI (bin/ferry → dist/), as a process, against `node -e 0` in the same run.
// Goals: `ferry --version` ≤ 2× `node -e 0`, `ferry --help` ≤ 3×, an already-local `ferry ensure IMAGE --store site-b
// --fsid <site-b> --json` (a new process: token + one image read) ≤ 0.3 s wall.
// Run: npx tsx bench/startup.ts [--runs 30]   (after `npm run build`; needs the dev cloud for the ensure row)
//      npx tsx bench/startup.ts --installed PREFIX   an installed artifact (`install.sh --prefix PREFIX`): its launcher
//      PREFIX/bin/ferry, against `node -e 0` of the Node it carries. The warm-up round fills its compile cache.
// The four commands run interleaved, round-robin, so a burst of load on the shared machine hits them all alike.
// Medians are compared. Exits 1 when a goal is missed or a command fails.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readBenchDevcloud, REPO_ROOT } from './lib/devcloud-facts.js';
import { formatTable } from './lib/format-table.js';
import { createGlanceAdmin } from './lib/glance-admin.js';
import { roundSummary, summarizeSamples } from './lib/summarize-samples.js';
import { writeBenchResult } from './lib/write-bench-result.js';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '30' }, installed: { type: 'string' } } });
const runs = Number(args.runs);
// What runs: the checkout's bin/ferry with this Node, or an installed artifact's launcher with the Node it carries.
const node = args.installed ? join(args.installed, 'lib', 'ferry', 'node', 'bin', 'node') : process.execPath;
const ferryCommand = args.installed ? [join(args.installed, 'bin', 'ferry')] : [process.execPath, join(REPO_ROOT, 'bin', 'ferry')];
const nodeVersion = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
const devcloud = readBenchDevcloud();
const admin = createGlanceAdmin(devcloud);

interface Case {
  readonly name: string;
  /** The program and its arguments. */
  readonly argv: readonly [string, ...string[]];
  readonly env?: Record<string, string>;
}

function timed(command: Case): number {
  const started = performance.now();
  const [program, ...rest] = command.argv;
  const run = spawnSync(program, rest, { encoding: 'utf8', env: { ...process.env, ...command.env } });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`${command.name} exited ${run.status}: ${run.stderr}`);
  return ms;
}

const samples = new Map<string, number[]>();
try {
  const id = await admin.uploadImage({ name: 'bench-startup', store: 'site-b', sizeBytes: 1024 * 1024 });
  const ferry = (...rest: string[]): [string, ...string[]] => [ferryCommand[0]!, ...ferryCommand.slice(1), ...rest];
  const cases: Case[] = [
    { name: 'node -e 0', argv: [node, '-e', '0'] },
    { name: 'ferry --version', argv: ferry('--version') },
    { name: 'ferry --help', argv: ferry('--help') },
    { name: 'ferry ensure (local, --fsid)', argv: ferry('ensure', id, '--store', 'site-b', '--fsid', devcloud.ceph['site-b'].fsid, '--json'),
      env: { OS_CLOUD: 'devcloud-admin', OS_CLIENT_CONFIG_FILE: devcloud.cloudsYaml } },
  ];
  for (const command of cases) timed(command); // warm the file cache once
  for (let i = 0; i < runs; i += 1) {
    for (const command of cases) samples.set(command.name, [...(samples.get(command.name) ?? []), timed(command)]);
  }
} finally {
  await admin.deleteAll();
}

const summary = Object.fromEntries([...samples].map(([name, values]) => [name, roundSummary(summarizeSamples(values))]));
const base = summary['node -e 0']!.p50;
const ratio = (name: string): number => Math.round((summary[name]!.p50 / base) * 100) / 100;
const goals = [
  { goal: 'ferry --version ≤ 2× node -e 0', value: `${ratio('ferry --version')}×`, met: ratio('ferry --version') <= 2 },
  { goal: 'ferry --help ≤ 3× node -e 0', value: `${ratio('ferry --help')}×`, met: ratio('ferry --help') <= 3 },
  { goal: 'already-local ferry ensure --fsid ≤ 0.3 s', value: `${summary['ferry ensure (local, --fsid)']!.p50} ms`,
    met: summary['ferry ensure (local, --fsid)']!.p50 <= 300 },
];

console.log(`${args.installed ? `installed artifact ${args.installed}` : 'checkout bin/ferry'}, Node ${nodeVersion}, ${runs} rounds`);
console.log(formatTable(['command', 'p50 ms', 'p90 ms', 'min ms', 'max ms', '× node -e 0'],
  Object.entries(summary).map(([name, s]) => [name, String(s.p50), String(s.p90), String(s.min), String(s.max), `${ratio(name)}`])));
console.log(formatTable(['goal', 'measured', 'met'], goals.map((g) => [g.goal, g.value, g.met ? 'yes' : 'NO'])));
const file = writeBenchResult(args.installed ? 'startup-artifact' : 'startup', { runner: args.installed ? 'artifact' : 'checkout', node: nodeVersion, runs, summaryMs: summary, ratios: Object.fromEntries(Object.keys(summary).map((n) => [n, ratio(n)])), goals });
console.log(`written to ${file}`);
if (goals.some((g) => !g.met)) process.exitCode = 1;
