// `npm run soak -- --minutes N [--seed S] [--out DIR] [--package-node | --no-package-node]`: the soak against the dev cloud of FERRY_DEVCLOUD_DIR
// (docs/soak.md). Exit 0 when every invariant held, 1 when one did not (the seed and the events around it printed),
// 2 for bad options.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runSoak } from './run.js';

function usage(problem: string): never {
  process.stderr.write(`soak: ${problem}\nusage: npm run soak -- --minutes N [--seed S] [--out DIR] [--package-node | --no-package-node] (docs/soak.md)\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values: { minutes?: string; seed?: string; out?: string; 'package-node'?: boolean; 'no-package-node'?: boolean };
  try {
    ({ values } = parseArgs({ options: { minutes: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' },
      'package-node': { type: 'boolean' }, 'no-package-node': { type: 'boolean' } } }));
  } catch (error) {
    usage((error as Error).message);
  }
  const minutes = Number(values.minutes);
  if (values.minutes === undefined || !(minutes > 0)) usage(`--minutes must be a number of minutes above 0, got ${values.minutes ?? 'nothing'}`);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) usage(`--seed must be a whole number ≥ 0, got ${values.seed}`);
  const out = values.out ?? join('.scratch', 'soak', `seed-${seed}-${new Date().toISOString().replace(/[:.]/g, '')}`);
  if (values['package-node'] && values['no-package-node']) usage('--package-node and --no-package-node: give one of them, or neither (a packaged node in runs of 10 minutes or more)');
  const packageNode = values['package-node'] ? true : values['no-package-node'] ? false : undefined;
  const result = await runSoak({ minutes, seed, out, ...(packageNode === undefined ? {} : { packageNode }) });
  process.stdout.write(result.markdown);
  if (!result.passed) {
    process.stderr.write(`${result.failure ?? ''}\n`);
    process.exit(1);
  }
}

void main();
