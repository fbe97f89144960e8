// Benchmark: parse one `virsh domcapabilities` XML and compute the host's traits from it, per fixture file.
// Budget: ≤ 2 ms per file (median). Run: npx tsx bench/traits-parse.ts [--iterations N]
// Exits 1 when a median is over budget, so CI can run it as a check.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { hostTraits, parseDomainCapabilities, standardTraitCatalogue } from '../src/traits/index.js';
import type { VirtType } from '../src/traits/index.js';

const BUDGET_MS = 2;
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'domcaps');
const FILES: readonly { readonly file: string; readonly virtType: VirtType }[] = [
  { file: 'domcaps-x86_64-kvm-pc.xml', virtType: 'kvm' },
  { file: 'domcaps-x86_64-kvm-q35.xml', virtType: 'kvm' },
  { file: 'domcaps-x86_64-qemu-pc.xml', virtType: 'qemu' },
  { file: 'domcaps-x86_64-qemu-q35.xml', virtType: 'qemu' },
];

const { values } = parseArgs({ options: { iterations: { type: 'string', default: '2000' } } });
const iterations = Number(values.iterations);
const catalogue = standardTraitCatalogue();

function once(xml: string, file: string, virtType: VirtType): number {
  const domcaps = parseDomainCapabilities(xml, file);
  const report = hostTraits(
    { virtType, domainCapabilities: [domcaps], hostArch: 'x86_64', libvirtVersion: '9.0.0', qemuVersion: '7.2.22', swtpmEnabled: true },
    catalogue,
  );
  return report.traits.length;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

let over = false;
console.log(`node ${process.version}, ${iterations} iterations per file (after ${Math.min(200, iterations)} warm-up)`);
for (const { file, virtType } of FILES) {
  const xml = readFileSync(join(FIXTURES, file), 'utf8');
  let traits = 0;
  for (let i = 0; i < Math.min(200, iterations); i += 1) traits = once(xml, file, virtType);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = performance.now();
    once(xml, file, virtType);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const median = percentile(samples, 50);
  over ||= median > BUDGET_MS;
  console.log(
    `${file.padEnd(28)} ${(xml.length / 1024).toFixed(1)} KiB  traits=${traits}  ` +
      `median ${median.toFixed(3)} ms  p95 ${percentile(samples, 95).toFixed(3)} ms  max ${percentile(samples, 100).toFixed(3)} ms  ` +
      `(budget ${BUDGET_MS} ms)`,
  );
}
if (over) {
  console.error(`over budget: a median exceeded ${BUDGET_MS} ms`);
  process.exit(1);
}
