// Records real Keystone, Glance and Placement answers from the running dev cloud into fixtures/<service>/<case>.json.
//
//   npm run devcloud:up && npx tsx scripts/record-fixtures.ts
//
// Reads $FERRY_DEVCLOUD_DIR/devcloud.json (default .devcloud/devcloud.json). Tokens and secrets are replaced by
// <token> / <secret>; a file that would still contain one is not written. Everything it creates (images, providers,
// a custom trait) is deleted again, also what an interrupted earlier run left behind, so it can run again at any time.
// File format and case list: docs/devcloud.md.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordGlanceCopyCases, recordGlanceDiscovery, recordGlanceImageCases } from './devcloud/recorder/glance-cases.js';
import { recordActiveTask409, recordNewOperation409 } from './devcloud/recorder/glance-races.js';
import { GlanceSession } from './devcloud/recorder/glance-session.js';
import { recordGlanceTimelines } from './devcloud/recorder/glance-timelines.js';
import { recordKeystoneCases } from './devcloud/recorder/keystone-cases.js';
import { recordPlacementCases } from './devcloud/recorder/placement-cases.js';
import { recordPrefilterCases } from './devcloud/recorder/prefilter-cases.js';
import { recordStoreDeleteCases } from './devcloud/recorder/store-delete-cases.js';
import { Recorder, loadDevcloud } from './devcloud/recorder/recorder.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const stateDir = process.env.FERRY_DEVCLOUD_DIR ?? join(repoRoot, '.devcloud');
const rec = new Recorder(loadDevcloud(join(stateDir, 'devcloud.json')), join(repoRoot, 'fixtures'));
const failures: string[] = [];

async function step(name: string, run: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  const before = rec.recorded.length;
  try {
    await run();
    console.log(`ok   ${name} (${rec.recorded.length - before} files, ${Math.round(performance.now() - t0)} ms)`);
  } catch (error) {
    failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    console.log(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const tokens = await recordKeystoneCases(rec);
console.log(`ok   keystone (${rec.recorded.length} files)`);
const glance = new GlanceSession(rec, tokens.admin, tokens.member);
try {
  await glance.cleanup();
  await step('glance discovery', () => recordGlanceDiscovery(glance));
  await step('glance images', () => recordGlanceImageCases(glance));
  await step('glance copy-image answers', () => recordGlanceCopyCases(glance));
  await step('glance busy-image 409s', async () => {
    const big = await recordActiveTask409(glance);
    await recordNewOperation409(glance, big);
    await glance.delete(big);
  });
  await step('glance timelines', () => recordGlanceTimelines(glance));
  await step('glance store deletes', () => recordStoreDeleteCases(glance, stateDir));
} finally {
  await glance.cleanup();
}
await step('placement', () => recordPlacementCases(rec, tokens.admin, tokens.member));
await step('placement prefilter', () => recordPrefilterCases(rec, tokens.admin));

console.log(`\n${rec.recorded.length} fixtures written:\n  ${rec.recorded.join('\n  ')}`);
if (rec.notes.length > 0) console.log(`notes:\n  ${rec.notes.join('\n  ')}`);
if (failures.length > 0) {
  console.log(`failed:\n  ${failures.join('\n  ')}`);
  process.exitCode = 1;
}
