// The soak (issue 35): compute nodes of two sites booting tenants' images through nova's real patched Rbd.clone() and
// real `ferry agent`s, while the seeded schedule kills and restarts the cloud's services and ferry's jobs run, every
// invariant checked as it goes. The I/O edge: the schedule (schedule.ts) and the checks (invariants.ts) are pure.
// The cloud's helpers are the integration tests' own (test/helpers, test/integration/agent): nothing written again.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ceph, devcloud, FERRY } from '../../test/helpers/devcloud.js';
import { faults, ferryChild, revokeToken } from '../../test/helpers/devcloud-faults.js';
import { startFaultProxy, type FaultProxy } from '../../test/helpers/fault-proxy.js';
import { deleteImage, glanceRequest, readImage, tokenFor, uploadImage, waitUnlocked } from '../../test/helpers/glance-admin.js';
import { asUtcTimestamp } from '../../src/glance/image-schema.js';
import { instanceSnapshot, removeSnapshotDisk, shareImage } from '../../test/helpers/tenant-images.js';
import { startAgent, type AgentProcess } from '../../test/integration/agent/agent-process.js';
import { novaConf, patchedNova } from '../../test/integration/agent/nova-tree.js';
import { sha512OfSnapshot } from '../../test/integration/copy/rbd-transfer-helpers.js';
import { parse as parseYaml } from 'yaml';
import { tokenDue } from './tenant-token.js';
import { alertSeverities, firedFromPromtool, inputSeries, judgeAlerts, noNodeExporterTicket, pageGroupBy, plantedCopyWarning, promtoolTest, TARGET_EXISTS_CLEARS_MINUTES,
  type Scrape } from './alerts.js';
import { failureText, History } from './history.js';
import { budgetsUnmet, copiesRemovedWithClones, fencesLeft, hashMismatches, judgeBoot, lastLocationsRemoved, leaks, locksLeftByOutage, ownCopyCodes, rssGrown, tenantDeleteOutcome,
  type BootContext, type LocationsSeen, type LockSeen } from './invariants.js';
import { metricsPortsOf } from './metrics-ports.js';
import { recover } from './recover.js';
import { startNovaNode, type NovaNode } from './nova-node.js';
import { packagedNodeUnavailable, startPackagedNode, type PackagedNode } from './package-node.js';
import { renderReport, type BootRecord, type SoakReport } from './report.js';
import { ALL_FAULT_KINDS, countByKind, soakSchedule, type ImageKind, type Site, type SoakEvent, type Tenant } from './schedule.js';

export interface SoakOptions {
  readonly minutes: number;
  readonly seed: number;
  /** Where the history (history.jsonl), the report (report.md, report.json) and the scraped metrics go. */
  readonly out: string;
  /** Compute nodes per site (default 2). */
  readonly nodesPerSite?: number;
  /** First of the TCP ports the agents' and the sync watch's --metrics-listen take (default: the dev cloud's Keystone port + 10). */
  readonly metricsPort?: number;
  /**
   * site-b's last node runs the Debian package's agent under the clean system's systemd, upgraded under load
   * (scripts/soak/package-node.ts). Default: in runs of 10 minutes or more (building the .debs takes minutes).
   */
  readonly packageNode?: boolean;
  readonly log?: (line: string) => void;
}

export interface Violation {
  readonly invariant: string;
  readonly detail: string;
  readonly t: number;
}

export interface SoakResult {
  readonly passed: boolean;
  readonly violations: readonly Violation[];
  readonly report: SoakReport;
  readonly markdown: string;
  readonly historyFile: string;
  readonly failure?: string;
}

interface SoakImage {
  readonly id: string;
  readonly kind: ImageKind;
  readonly owner: 'admin' | Tenant;
  /** The tenant whose token boots it (undefined: either, by turns). */
  readonly bootAs?: Tenant;
  deletedAt?: number;
  readonly disk?: string;
}

interface Node {
  readonly index: number;
  readonly site: Site;
  readonly hostname: string;
  readonly socket: string;
  readonly args: readonly string[];
  /** The plain process's agent; undefined on the packaged node, whose agent is the unit's. */
  agent?: AgentProcess;
  packaged?: PackagedNode;
  nova: NovaNode;
  agentStartedAt: number;
  warmRssKiB?: number;
}

interface Window { readonly kind: string; readonly site?: Site; readonly from: number; to?: number }

const MiB = 1024 * 1024;
const IMAGE_BYTES = 8 * MiB;
/**
 * What each site's pool may hold (ferry evict --budget): less than the soak's copies, so that the operator's idle
 * copies are evicted during the run (the tenants' are not ferry-evict's to remove: they stay, not-owned).
 */
const BUDGET = '40M';
/** After an outage ends, this long still counts as it (the service answers, its clients reconnect). */
const RECOVERY_S = 20;
const INVARIANTS = ['boots (0 failed that stock nova would not fail too)', 'no last location removed', 'no copy with clones removed',
  'no bytes differing from Glance\'s hash', 'no fence left after its run', 'budgets met at the end', 'no leaks', 'agent RSS flat (≤ 20 %)',
  'alerts: fire in outages, clear after, none falsely', 'packaged node upgraded (dpkg and its agent at the newer version)'] as const;
type InvariantName = typeof INVARIANTS[number];

/** Set-up's bound: uploads, four agents, four nova imports (64 s each at load 30 on 2 cores). */
const SETUP_S = 600;
/** The end's wait for a boot in flight: the agents' --timeout (5 min), nova's 30 s over it, and its retries. */
const DRAIN_S = 420;
/** One eviction run's bound. */
const EVICT_LIMIT_S = 300;
/** The end: instances still to delete (300 s), two final evictions (each killed after EVICT_LIMIT_S), hashes, fences, clean-up. */
const FINAL_S = 2 * EVICT_LIMIT_S + 600;

/** How long a soak of `minutes` may take in all (the smoke's time limit, and every child's). */
export function soakLimitSeconds(minutes: number): number {
  return SETUP_S + Math.round(minutes * 60) + DRAIN_S + FINAL_S;
}

const RULES = 'packaging/monitoring/ferry-alerts.yml';
/** The shipped Alertmanager route: its pager route's group_by is what a page is (one notification group). */
const ALERTMANAGER = 'packaging/monitoring/ferry-alertmanager.yml';
/** The scrape interval (the scraper's pause; promtool's input interval). */
const SCRAPE_S = 15;

/**
 * promtool on the scraped metrics: which alerts fired when (minutes from the first scrape), each outage's alerts and
 * pages, false alarms, alerts still firing at the end. `outages` in seconds of the history's clock.
 */
function evaluateAlerts(scrapeFile: string, out: string, outages: readonly { kind: string; from: number; to: number }[], startedAt: number,
  planted: readonly { site: string; from: number; removedAt: number | undefined }[], hosts: readonly string[]): { rows: SoakReport['alerts'][number][]; problems: string[] } {
  const scrapes = readFileSync(scrapeFile, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Scrape);
  if (scrapes.length === 0) return { rows: [], problems: ['no scrape'] };
  const promtool = spawnSync('bash', [join(process.cwd(), 'scripts/monitoring/ensure-promtool')], { encoding: 'utf8', timeout: 900_000 });
  const path = promtool.stdout.trim().split('\n').at(-1);
  if (promtool.status !== 0 || !path) return { rows: [], problems: [`promtool unavailable: ${promtool.stderr.trim().slice(-300)}`] };
  const first = Math.min(...scrapes.map((scrape) => scrape.t));
  const minutes = Math.ceil((Math.max(...scrapes.map((scrape) => scrape.t)) - first) / 60_000);
  const severities = alertSeverities(readFileSync(RULES, 'utf8'));
  const testFile = join(resolve(out), 'alerts.test.yml');
  writeFileSync(testFile, promtoolTest(resolve(RULES), inputSeries(scrapes, SCRAPE_S), SCRAPE_S, [...severities.keys()], minutes));
  const run = spawnSync(path, ['test', 'rules', testFile], { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  writeFileSync(join(resolve(out), 'promtool.out'), `${run.stdout}${run.stderr}`);
  const fired = firedFromPromtool(`${run.stdout}${run.stderr}`);
  const toMinute = (second: number): number => (startedAt + second * 1000 - first) / 60_000;
  const windows = outages.filter((o) => o.kind === 'glance-outage' || o.kind === 'osd-stop')
    .map((o) => ({ kind: o.kind, from: toMinute(o.from), to: toMinute(o.to) }));
  const critical = new Set([...severities.entries()].filter(([, severity]) => severity === 'critical').map(([name]) => name));
  const expected = planted.map((p) => plantedCopyWarning({ site: p.site, from: toMinute(p.from),
    removedAt: p.removedAt === undefined ? undefined : toMinute(p.removedAt) }, minutes)).concat(hosts.map(noNodeExporterTicket));
  const judged = judgeAlerts(fired, windows, minutes, critical, { groupBy: pageGroupBy(parseYaml(readFileSync(ALERTMANAGER, 'utf8'))), expected });
  const rows = [
    ...judged.perOutage.map(({ outage, alerts, pages }) => ({ alert: alerts.join(', ') || 'none',
      fired: `${outage.kind} min ${outage.from.toFixed(1)}-${outage.to.toFixed(1)}`, cleared: alerts.some((a) => judged.stillFiring.includes(a)) ? 'no' : 'yes',
      expected: outage.to - outage.from > 5 + SCRAPE_S / 60 ? `fires (${pages} page${pages === 1 ? '' : 's'})` : 'none (shorter than the rules\' 5 min)' })),
    ...judged.expectedFired.map((alert) => (alert.startsWith('FerryAgentUnitStateMissing')
      ? { alert, fired: 'no node_exporter scraped in the soak', cleared: judged.stillFiring.includes(alert) ? 'no' : 'yes', expected: 'true of every soak node (its for: 1h)' }
      : { alert, fired: 'a planted copy (forged-copy), until its removal',
        cleared: judged.stillFiring.includes(alert) ? 'no' : 'yes', expected: `may fire until ${TARGET_EXISTS_CLEARS_MINUTES} min after the removal` })),
    ...judged.falseAlarms.map((alert) => ({ alert, fired: 'outside any outage', cleared: judged.stillFiring.includes(alert) ? 'no' : 'yes', expected: 'none' })),
  ];
  const problems = [
    ...judged.falseAlarms.map((alert) => `fired outside any outage: ${alert}`),
    ...judged.stillFiring.map((alert) => `still firing at the end: ${alert}`),
    ...judged.perOutage.filter(({ outage, alerts }) => outage.to - outage.from > 5 + SCRAPE_S / 60 && alerts.length === 0)
      .map(({ outage }) => `${outage.kind} of ${(outage.to - outage.from).toFixed(1)} min fired no alert`),
    ...judged.perOutage.filter(({ pages }) => pages > 1)
      .map(({ outage, pages }) => `${outage.kind} min ${outage.from.toFixed(1)}-${outage.to.toFixed(1)} was ${pages} pages (one outage, one page)`),
  ];
  return { rows, problems };
}

/** scripts/devcloud/up (restarts what a fault stopped) without blocking the soak's clock, as faults.up() would. */
function devcloudUp(): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('timeout', ['300', 'bash', join(process.cwd(), 'scripts/devcloud/up')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-2000); });
    child.once('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`scripts/devcloud/up exited ${code}: ${stderr}`))));
  });
}

/** Glance's `stores` of an image read as admin (none for a deleted image). */
const storesOf = (image: Record<string, unknown>): string[] => (typeof image.stores === 'string' ? image.stores.split(',').filter((s) => s !== '') : []);

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? ((line: string) => { process.stderr.write(`${line}\n`); });
  const facts = devcloud();
  const perSite = options.nodesPerSite ?? 2;
  const ports = metricsPortsOf(facts.keystone.url, perSite * 2, options.metricsPort);
  // The packaged node: asked for (or a run of 10 minutes or more), and possible here (a private systemd).
  const packageWanted = options.packageNode ?? options.minutes >= 10;
  const noPackage = packageWanted ? packagedNodeUnavailable() : 'not asked for (--package-node, or a run of 10 minutes or more)';
  const packagedIndex = noPackage === '' ? perSite * 2 - 1 : undefined;
  const schedule = soakSchedule({ seed: options.seed, minutes: options.minutes, nodes: perSite * 2, packagedNode: packagedIndex });
  mkdirSync(options.out, { recursive: true });
  const startedAt = Date.now();
  const history = new History(join(options.out, 'history.jsonl'), startedAt);
  const now = (): number => history.now();
  const violations: Violation[] = [];
  const checks = new Map<InvariantName, number>(INVARIANTS.map((name) => [name, 0]));
  const check = (name: InvariantName, found: readonly string[], count = 1): void => {
    checks.set(name, (checks.get(name) ?? 0) + count);
    for (const detail of found) {
      violations.push({ invariant: name, detail, t: now() });
      history.add('violation', { invariant: name, detail });
      log(`[${now()} s] VIOLATION ${name}: ${detail}`);
    }
  };
  const prefix = `soak-${options.seed}-${startedAt.toString(36)}`;
  const work = resolve(options.out, 'work');
  mkdirSync(join(work, 'sockets'), { recursive: true });
  const ownCopy = ownCopyCodes(readFileSync('docs/nova-patch.md', 'utf8'));
  const loads: number[] = [];
  history.add('start', { seed: options.seed, minutes: options.minutes, prefix, events: schedule.events.length });
  log(`soak: seed ${options.seed}, ${options.minutes} min, ${perSite * 2} nodes; history ${history.file}`);
  if (packagedIndex === undefined) {
    const loud = `NO PACKAGED NODE: every node is a plain process, no package upgrade is injected: ${noPackage}`;
    log(`soak: ${loud}`);
    history.add('no-packaged-node', { reason: noPackage });
  }

  // ---- the images: every kind a tenant boots (tenant-boot.test.ts), in central (both sites copy them) ----
  const tokens: Record<Tenant, string> = { 'tenant-a': await tokenFor('tenant-a'), 'tenant-b': await tokenFor('tenant-b') };
  const issuedAt: Record<Tenant, number> = { 'tenant-a': Date.now(), 'tenant-b': Date.now() };
  /** A tenant's token for a boot, logged in again once it is half its lifetime old (tokenDue), as a user's client does. */
  const tenantToken = async (tenant: Tenant): Promise<string> => {
    if (tokenDue(issuedAt[tenant], Date.now())) {
      issuedAt[tenant] = Date.now();
      tokens[tenant] = await tokenFor(tenant);
    }
    return tokens[tenant];
  };
  const revoked = new Map<string, number>();
  const images: SoakImage[] = [];
  const upload = async (kind: ImageKind, owner: SoakImage['owner'], visibility: 'public' | 'private' | 'community' | 'shared', bootAs?: Tenant): Promise<SoakImage> => {
    const id = await uploadImage({ name: `${prefix}-${kind}`, store: 'central', sizeBytes: IMAGE_BYTES, as: owner, visibility });
    const image: SoakImage = { id, kind, owner, ...(bootAs ? { bootAs } : {}) };
    images.push(image);
    history.add('image', { id, kind, owner, visibility });
    return image;
  };
  await upload('public', 'admin', 'public');
  await upload('public', 'admin', 'public');
  const firstPrivate = await upload('private', 'tenant-a', 'private', 'tenant-a');
  const tenantAProject = String((await readImage(firstPrivate.id)).owner);
  await upload('community', 'tenant-b', 'community', 'tenant-a');
  const shared = await upload('shared', 'tenant-b', 'shared', 'tenant-a');
  await shareImage(shared.id, tenantAProject, { owner: tokens['tenant-b'], member: tokens['tenant-a'] }, 'accepted');
  const snapshot = await instanceSnapshot(`${prefix}-snapshot`, tokens['tenant-a'], 'site-a');
  images.push({ id: snapshot.id, kind: 'snapshot', owner: 'tenant-a', bootAs: 'tenant-a', disk: snapshot.disk });
  history.add('image', { id: snapshot.id, kind: 'snapshot', owner: 'tenant-a', visibility: 'private' });
  await upload('new', 'admin', 'public');

  // ---- the nodes: a real agent each (ferry's least-privilege identity, its own host name), and nova ----
  const proxy: FaultProxy = await startFaultProxy(facts.glance.url);
  const nova = patchedNova();
  const limitSeconds = soakLimitSeconds(options.minutes);
  const nodes: Node[] = [];
  for (let index = 0; index < perSite * 2; index += 1) {
    const site: Site = index < perSite ? 'site-a' : 'site-b';
    const hostname = `soak-${site}-${index % perSite}`;
    const socket = join(work, 'sockets', `${hostname}.sock`);
    // Every second node reaches Glance through the fault proxy (the answers lost); all are scraped.
    const args = ['--metrics-listen', `127.0.0.1:${ports.agents[index]}`, '--timeout', '5m',
      ...(index % 2 === 1 ? ['--glance-endpoint', proxy.url] : [])];
    // The packaged node: the .deb's units in the clean system, nova on the host through the unit's socket.
    const packaged = index === packagedIndex ? await startPackagedNode(hostname, args.join(' ')) : undefined;
    // The agent lives as long as the soak may (startAgent's default, 30 min, SIGTERMed every agent mid-run).
    const agent = packaged ? undefined : await startAgent(args, { socket, site, hostname, lifetimeMs: limitSeconds * 1000 });
    const conf = novaConf(work, site, { socket: packaged?.socket ?? socket }, site);
    nodes.push({ index, site, hostname, socket, args, ...(agent ? { agent } : {}), ...(packaged ? { packaged } : {}),
      nova: startNovaNode(nova.root, conf, limitSeconds), agentStartedAt: now() });
    history.add('node', { index, site, hostname, agent_pid: agent?.child.pid, glance: index % 2 === 1 ? 'fault proxy' : 'direct',
      ...(packaged ? { packaged: packaged.olderVersion, socket: packaged.socket } : {}) });
  }
  const importSeconds = await Promise.all(nodes.map((node) => node.nova.imported));
  log(`soak: ${nodes.length} nodes up, nova imported in ${importSeconds.map((s) => s.toFixed(0)).join(', ')} s`);

  // The run's clock starts now: the schedule's seconds count from here.
  const runStart = Date.now();
  const at = (): number => (Date.now() - runStart) / 1000;
  const tOffset = now();
  const sleepUntil = async (second: number): Promise<void> => { const wait = second * 1000 - (Date.now() - runStart); if (wait > 0) await sleep(wait); };
  const windows: Window[] = [];
  const planted: { image: string; site: Site; at: number; removedAt?: number }[] = [];
  const live = new Map<string, { image: string; site: Site; name: string; since: number }>();
  const inFlight = new Map<string, { image: string; node: number }>();
  const bootRecords: (BootRecord & { name: string })[] = [];
  const jobs: SoakEvent[] = [];
  const upgrades: { from: number; to?: number; seconds?: number; rolledBackSeconds?: number; boots: { name: string; ok: boolean; route: string; seconds: number }[] }[] = [];
  const injected: SoakEvent[] = [];
  let stopping = false;

  // ---- metrics scraped all through the run (the alerts are evaluated on them afterwards) ----
  const scrapeFile = join(options.out, 'metrics.jsonl');
  writeFileSync(scrapeFile, '');
  const scraper = (async () => {
    while (!stopping) {
      const targets = [...nodes.map((node) => ({ job: 'ferry-agent', instance: `${node.hostname}:${ports.agents[node.index]}`, site: node.site, port: ports.agents[node.index]! })),
        { job: 'ferry-sync', instance: `soak-sync:${ports.sync}`, site: undefined, port: ports.sync }];
      const t = Date.now();
      for (const target of targets) {
        const text = await fetch(`http://127.0.0.1:${target.port}/metrics`, { signal: AbortSignal.timeout(5000) }).then((r) => r.text()).catch(() => undefined);
        writeFileSync(scrapeFile, `${JSON.stringify({ t, job: target.job, instance: target.instance, site: target.site, up: text !== undefined, text: text ?? '' })}\n`, { flag: 'a' });
      }
      loads.push(loadavg()[0] ?? 0);
      await sleep(SCRAPE_S * 1000);
    }
  })();

  // ---- ferry sync --watch with a policy, all through the run: the operator's golden images (the first two public
  // ones) in both sites; evictions take the same policy (those are pinned), the operator's new uploads may go ----
  const policyFile = join(work, 'sync-policy.yaml');
  const golden = images.filter((image) => image.kind === 'public').map((image) => image.id);
  writeFileSync(policyFile, ['version: 1', 'placements:', '  - name: golden', '    images:',
    `      ids: [${golden.join(', ')}]`, '    stores: [site-a, site-b]', ''].join('\n'));
  let syncChild: { kill(signal: NodeJS.Signals): boolean } | undefined;
  const sync = ferryChild(['sync', '--policy', policyFile, '--watch', '--interval', '20s', '--metrics-listen', `127.0.0.1:${ports.sync}`, '--json'],
    { killAfterMs: limitSeconds * 1000, onStderr: (stderr, child) => { syncChild = child; history.add('sync-pass', { line: stderr.trim().split('\n').at(-1) }); } });

  // ---- the boots ----
  const contextOf = (image: SoakImage, token: string, site: Site, from: number, to: number): BootContext => {
    const overlaps = (w: Window): boolean => w.from <= to && (w.to === undefined ? true : w.to + RECOVERY_S >= from);
    return {
      imageDeleted: image.deletedAt !== undefined && image.deletedAt <= to,
      tokenExpired: (revoked.get(token) ?? Number.POSITIVE_INFINITY) <= to,
      glanceDown: windows.some((w) => w.kind === 'glance-outage' && overlaps(w)),
      cephDown: windows.some((w) => (w.kind === 'osd-stop' || w.kind === 'mon-restart') && w.site === site && overlaps(w)),
      // A boot that overlapped the planted copy's life (until its removal and the recovery after it).
      planted: planted.some((p) => p.image === image.id && p.site === site && p.at <= to && (p.removedAt === undefined || p.removedAt + RECOVERY_S >= from)),
    };
  };
  const pickImage = (kind: ImageKind, n: number): SoakImage | undefined => {
    const candidates = images.filter((image) => image.kind === kind && image.deletedAt === undefined);
    return kind === 'new' ? candidates.at(-1) : candidates[n % Math.max(1, candidates.length)];
  };
  const bootLoop = async (node: Node): Promise<void> => {
    const plan = schedule.boots[node.index] ?? [];
    for (let n = 0; n < plan.length && !stopping; n += 1) {
      const step = plan[n]!;
      await sleep(step.gapSeconds * 1000);
      if (stopping || at() >= schedule.seconds) break;
      const image = pickImage(step.kind, n);
      if (image === undefined) continue;
      const tenant: Tenant = image.bootAs ?? (n % 2 === 0 ? 'tenant-a' : 'tenant-b');
      const token = await tenantToken(tenant);
      const name = `${prefix}-n${node.index}-${n}`;
      const from = at();
      inFlight.set(name, { image: image.id, node: node.index });
      history.add('boot', { node: node.index, name, image: image.id, kind: image.kind, tenant });
      const answer = await node.nova.boot(name, image.id, token);
      inFlight.delete(name);
      const to = at();
      // The clone's parent, read from its cluster; during a monitor or OSD outage that read waits (12 × 5 s at most).
      let info = answer.ok ? ceph(node.site, 'rbd', ['info', `vms/${name}`]) : undefined;
      for (let attempt = 0; info !== undefined && info.code !== 0 && attempt < 12 && !/No such file/.test(info.stderr); attempt += 1) {
        await sleep(5000);
        info = ceph(node.site, 'rbd', ['info', `vms/${name}`]);
      }
      const parent = /parent: (\S+)/.exec(info?.stdout ?? '')?.[1];
      const verdict = judgeBoot({ name, image: image.id, site: node.site, ok: answer.ok, ...(answer.error ? { error: answer.error } : {}),
        ...(answer.message ? { message: answer.message } : {}), warnings: answer.warnings, ...(parent ? { parent } : {}) },
      contextOf(image, token, node.site, from, to), ownCopy);
      history.add('booted', { node: node.index, name, image: image.id, kind: image.kind, ok: answer.ok, seconds: answer.seconds,
        error: answer.error, message: answer.message?.slice(0, 300), warnings: answer.warnings.map((w) => w.slice(0, 300)), parent,
        verdict: verdict.ok ? verdict.route : 'VIOLATION', why: verdict.why });
      check('boots (0 failed that stock nova would not fail too)', verdict.ok ? [] : [`${name} (${image.kind} ${image.id} at ${node.site}): ${verdict.why}`]);
      bootRecords.push({ name, kind: image.kind, route: verdict.ok ? verdict.route : 'violation', seconds: answer.seconds, ok: answer.ok });
      // The packaged node's boots while it was upgraded (judged as any other above; the report lists them).
      for (const upgrade of node.packaged ? upgrades : []) {
        if (from <= (upgrade.to ?? Number.POSITIVE_INFINITY) && to >= upgrade.from) {
          upgrade.boots.push({ name, ok: answer.ok, route: verdict.ok ? verdict.route : 'violation', seconds: answer.seconds });
        }
      }
      if (answer.ok) {
        live.set(name, { image: image.id, site: node.site, name, since: to });
        // The instance deleted after its life; a delete that fails (its Ceph down) is tried again, as nova's is.
        const remove = async (): Promise<void> => {
          for (let attempt = 1; ; attempt += 1) {
            const deleted = await node.nova.delete(name);
            history.add('deleted', { node: node.index, name, ok: deleted.ok, error: deleted.error, attempt });
            if (deleted.ok || attempt >= 30) break;
            await sleep(10_000);
          }
          live.delete(name);
        };
        setTimeout(() => { void remove(); }, step.lifeSeconds * 1000);
      }
    }
  };
  const loops = nodes.map((node) => bootLoop(node));

  // ---- the schedule's events ----
  const evictChains = new Map<Site, Promise<void>>();
  const evictResults: { site: Site; verdict: string | undefined; kept: string[]; importing: string[]; code: number | null }[] = [];
  const evict = (site: Site, label: string): Promise<void> => {
    const previous = evictChains.get(site) ?? Promise.resolve();
    const next = previous.then(async () => {
      const liveBefore = [...live.values()].filter((clone) => clone.site === site);
      const run = await ferryChild(['evict', '--store', site, '--ceph-conf', facts.ceph[site].conf, '--rbd-user', FERRY.evictRbdUser,
        '--budget', BUDGET, '--policy', policyFile, '--idle', '0', '--grace', '2s', '--json'], { killAfterMs: EVICT_LIMIT_S * 1000 });
      const report = run.json as { budget?: { verdict?: string; kept?: Record<string, unknown> };
        copies?: { image: string; store: string; outcome: string | null; reason?: string; outcomeReason?: string }[] };
      const removed = (report.copies ?? []).filter((copy) => copy.outcome === 'evicted');
      const importing = (report.copies ?? []).filter((copy) => copy.outcome !== 'evicted' && (copy.outcomeReason ?? copy.reason) === 'importing')
        .map((copy) => copy.image);
      // A clone live before the run started and still live after it was there all through: its copy must have stayed.
      const throughout = liveBefore.filter((clone) => live.has(clone.name));
      check('no copy with clones removed', copiesRemovedWithClones(removed, throughout), Math.max(1, removed.length));
      evictResults.push({ site, verdict: report.budget?.verdict, kept: Object.keys(report.budget?.kept ?? {}), importing, code: run.code });
      history.add('evicted', { site, label, code: run.code, verdict: report.budget?.verdict, kept: Object.keys(report.budget?.kept ?? {}),
        removed: removed.map((copy) => copy.image), ...(importing.length > 0 ? { importing } : {}),
        ...(run.code !== 0 && run.code !== 51 ? { stderr: run.stderr.slice(-500) } : {}) });
    });
    evictChains.set(site, next.catch(() => undefined));
    return next;
  };
  const restartAgent = async (node: Node): Promise<void> => {
    if (node.packaged) {
      const restart = await node.packaged.restart();
      node.agentStartedAt = at();
      node.warmRssKiB = undefined;
      history.add('agent-restarted', { node: node.index, packaged: true, code: restart.code, seconds: restart.seconds });
      return;
    }
    const code = await node.agent?.stop();
    // Ready once it answers /healthz at all (`healthy: false`): a restart during a Glance outage or an OSD stop answers
    // 503 until the service is back, and serves (nova's fallback decides) meanwhile, as a real node's agent does.
    node.agent = await startAgent(node.args, { socket: node.socket, site: node.site, hostname: node.hostname, lifetimeMs: limitSeconds * 1000,
      healthy: false });
    node.agentStartedAt = at();
    node.warmRssKiB = undefined;
    history.add('agent-restarted', { node: node.index, exit: code, pid: node.agent.child.pid });
  };
  const outage = async (event: SoakEvent, service: Parameters<typeof faults.kill>[0], seconds: number, site?: Site): Promise<void> => {
    const window: Window = { kind: event.kind, ...(site ? { site } : {}), from: at() };
    windows.push(window);
    faults.kill(service);
    history.add('fault', { kind: event.kind, service, seconds });
    await sleep(seconds * 1000);
    const recovery = await recover(devcloudUp);
    // Closed either way: an open window runs to the end, merging later pages into this outage and excusing failures.
    window.to = at();
    if (!recovery.ok) throw new Error(`${service} not recovered after ${recovery.tries} tries of scripts/devcloud/up: ${String(recovery.error)}`);
    history.add('recovered', { kind: event.kind, service, after: Math.round(window.to - window.from), tries: recovery.tries });
  };
  const newestUpload = (): SoakImage | undefined => images.filter((image) => image.kind === 'new' && image.deletedAt === undefined).at(-1);
  const runEvent = async (event: SoakEvent): Promise<void> => {
    switch (event.kind) {
      case 'glance-outage': return outage(event, 'glance', event.seconds);
      case 'osd-stop': return outage(event, `ceph-${event.site}-osd`, event.seconds, event.site);
      case 'mon-restart': return outage(event, `ceph-${event.site}-mon`, 5, event.site);
      case 'token-expiry': {
        const old = tokens[event.tenant];
        const status = await revokeToken(old);
        revoked.set(old, at());
        history.add('fault', { kind: event.kind, tenant: event.tenant, status });
        await sleep(3000);
        tokens[event.tenant] = await tokenFor(event.tenant);
        issuedAt[event.tenant] = Date.now();
        return;
      }
      case 'answers-lost': {
        // Answers lost after Glance acted: image reads and import requests of the proxied agents.
        proxy.add({ method: 'GET', path: /^\/v2\/images\/[0-9a-f-]{36}$/, nth: 1, times: 4, fault: { kind: 'reset-after' } });
        proxy.add({ method: 'POST', path: /^\/v2\/images\/[0-9a-f-]{36}\/import$/, nth: 1, times: 2, fault: { kind: 'reset-after' } });
        const before = proxy.log.filter((entry) => entry.action === 'reset-after').length;
        history.add('fault', { kind: event.kind, seconds: event.seconds });
        // The window, longer while no answer was lost yet (the proxied agents had nothing to ask), up to 3 times it.
        const deadline = Date.now() + event.seconds * 3000;
        await sleep(event.seconds * 1000);
        while (Date.now() < deadline && !stopping && proxy.log.filter((entry) => entry.action === 'reset-after').length === before) await sleep(1000);
        const lost = proxy.log.filter((entry) => entry.action === 'reset-after').length - before;
        proxy.clear();
        history.add('recovered', { kind: event.kind, lost });
        return;
      }
      case 'agent-restart': {
        const node = nodes[event.node % nodes.length]!;
        history.add('fault', { kind: event.kind, node: node.index });
        return restartAgent(node);
      }
      case 'upload': {
        await upload('new', event.image === 'public' ? 'admin' : 'tenant-a', event.image, event.image === 'private' ? 'tenant-a' : undefined);
        return;
      }
      case 'prewarm': {
        const image = images.filter((i) => i.kind === 'new' && i.owner === 'admin' && i.deletedAt === undefined).at(-1);
        if (image === undefined) return;
        const run = await ferryChild(['prewarm', '--store', 'site-a', '--store', 'site-b', image.id, '--json'], { killAfterMs: DRAIN_S * 1000 });
        history.add('prewarmed', { image: image.id, code: run.code, ...(run.code !== 0 ? { stderr: run.stderr.slice(-500) } : {}) });
        return;
      }
      case 'forged-copy': {
        // A neighbour's image under the name of an image not yet in that site (a partial copy: no snapshot).
        const image = newestUpload();
        if (image === undefined) return;
        const stores = storesOf(await readImage(image.id));
        if (stores.includes(event.site)) {
          history.add('fault', { kind: event.kind, site: event.site, image: image.id, skipped: 'already there' });
          return;
        }
        faults.rbdLeftover(event.site, image.id);
        const plant: (typeof planted)[number] = { image: image.id, site: event.site, at: at() };
        planted.push(plant);
        history.add('fault', { kind: event.kind, site: event.site, image: image.id, remove_after: event.removeAfter });
        // The operator, as docs/runbooks.md (FerryCopiesFailing → exit-codes.md 33) says: nothing cloned from it, no
        // location of Glance's names it (it is not ferry's copy), then `rbd rm`; the next boot's copy goes through.
        await sleep(event.removeAfter * 1000);
        if (storesOf(await readImage(image.id)).includes(event.site)) {
          history.add('forged-copy-removed', { site: event.site, image: image.id, skipped: 'Glance names a copy there' });
          return;
        }
        faults.rbdRemove(event.site, image.id);
        plant.removedAt = at();
        history.add('forged-copy-removed', { site: event.site, image: image.id, after: Math.round(plant.removedAt - plant.at) });
        return;
      }
      case 'tenant-delete': {
        // A tenant deletes its image while it is copied or booted: one being booted now if there is one.
        const booting = new Set([...inFlight.values()].map((boot) => boot.image));
        const owned = images.filter((image) => image.owner === 'tenant-a' && image.kind !== 'snapshot' && image.deletedAt === undefined);
        const image = owned.find((i) => booting.has(i.id)) ?? owned.at(-1);
        if (image === undefined) return;
        const asked = at();
        const outcome = tenantDeleteOutcome(await deleteImage(image.id, 'tenant-a'));
        history.add('fault', { kind: event.kind, image: image.id, booting: booting.has(image.id), outcome });
        // Refused (409: an instance is cloned from its copy): the image stays, and the end deletes it with the rest
        // (seed 36 counted two such as deleted, and their copies as leaks).
        if (outcome !== 'deleted') return;
        image.deletedAt = asked;
        // Its kind bootable again (tried again on its own: the delete is done).
        await whenGlanceAnswers(() => upload(image.kind, 'tenant-a', 'private', 'tenant-a'));
        return;
      }
      case 'evict': return evict(event.site, 'scheduled');
      case 'package-upgrade': {
        const node = nodes[event.node];
        if (node?.packaged === undefined) return;
        const upgrade: (typeof upgrades)[number] = { from: at(), boots: [] };
        upgrades.push(upgrade);
        history.add('fault', { kind: event.kind, node: node.index, to: node.packaged.newerVersion });
        const record = await node.packaged.upgrade();
        upgrade.to = at();
        upgrade.seconds = record.aptSeconds;
        if (record.rolledBackSeconds !== undefined) upgrade.rolledBackSeconds = record.rolledBackSeconds;
        node.agentStartedAt = at();
        node.warmRssKiB = undefined;
        history.add('upgraded', { node: node.index, ...record, boots: upgrade.boots });
        check('packaged node upgraded (dpkg and its agent at the newer version)', record.problems.map((problem) => `${node.hostname}: ${problem}`));
        return;
      }
    }
  };
  /** A job that needs Glance (an upload, a tenant's delete, a look) waits out an outage as its user would: tried again. */
  const whenGlanceAnswers = async <T>(job: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await job();
      } catch (error) {
        if (attempt >= 24 || !String(error).includes('fetch failed')) throw error;
        await sleep(5000);
      }
    }
  };
  const pendingEvents: Promise<void>[] = [];
  const eventLoop = (async () => {
    for (const event of schedule.events) {
      await sleepUntil(event.at);
      if (stopping) break;
      (ALL_FAULT_KINDS.includes(event.kind) ? injected : jobs).push(event);
      pendingEvents.push(whenGlanceAnswers(() => runEvent(event)).catch((error: unknown) => {
        history.add('event-error', { kind: event.kind, error: String(error).slice(0, 500) });
        log(`[${now()} s] ${event.kind} failed: ${String(error)}`);
      }));
    }
  })();

  // ---- checks all through: locations (every 30 s), RSS after warm-up ----
  let lastSeen: LocationsSeen[] = [];
  const readLocations = async (): Promise<LocationsSeen[] | undefined> => {
    try {
      return await Promise.all(images.map(async (image) => {
        const read = await readImage(image.id);
        return { image: image.id, stores: storesOf(read), deleted: image.deletedAt !== undefined || read.status === undefined };
      }));
    } catch {
      return undefined; // Glance down: the next look
    }
  };
  const rssKiB = (pid: number | undefined): number | undefined => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    } catch {
      return undefined;
    }
  };
  const watcher = (async () => {
    while (!stopping) {
      await sleep(Math.min(30_000, schedule.seconds * 250));
      const seen = await readLocations();
      if (seen !== undefined) {
        check('no last location removed', lastLocationsRemoved(lastSeen, seen), Math.max(1, lastSeen.length));
        lastSeen = seen;
      }
      for (const node of nodes) {
        if (node.warmRssKiB === undefined && at() >= Math.max(schedule.warmUpSeconds, node.agentStartedAt + 60)) {
          node.warmRssKiB = node.packaged ? await node.packaged.rssKiB() : rssKiB(node.agent?.child.pid);
          history.add('rss-warm', { node: node.index, kib: node.warmRssKiB });
        }
      }
    }
  })();

  // ---- the run's length, then the end ----
  await sleepUntil(schedule.seconds);
  stopping = true;
  log(`[${now()} s] soak: the schedule is over; waiting for boots in flight (${inFlight.size}) and the events`);
  history.add('stopping', { in_flight: inFlight.size });
  await Promise.all(loops);
  await eventLoop;
  await Promise.all(pendingEvents);
  await watcher;
  await scraper;
  // Every instance deleted (as nova would), then no eviction runs: the final look.
  for (let i = 0; i < 300 && live.size > 0; i += 1) await sleep(1000);
  syncChild?.kill('SIGINT');
  const syncRun = await sync;
  history.add('sync-ended', { code: syncRun.code, signal: syncRun.signal, passes: (syncRun.json.watch as { passes?: number } | undefined)?.passes });
  await Promise.all([...evictChains.values()]);
  const finalVerdicts: { store: string; verdict: string | undefined; kept: string[]; importing: string[] }[] = [];
  for (const site of ['site-a', 'site-b'] as const) {
    const before = evictResults.length;
    await evict(site, 'final').catch(() => undefined);
    const last = evictResults.length > before ? evictResults.at(-1) : undefined;
    finalVerdicts.push({ store: site, verdict: last?.verdict, kept: last?.kept ?? [], importing: last?.importing ?? [] });
  }
  // A copy kept `importing` at the end: whose lock, and whether a Glance outage left it (its task never moved again).
  const locks = await Promise.all([...new Set(finalVerdicts.flatMap((row) => row.importing))].map(async (image): Promise<LockSeen | undefined> => {
    const task = (await readImage(image)).os_glance_import_task;
    if (typeof task !== 'string') return undefined;
    const read = await glanceRequest(await tokenFor('admin'), 'GET', `/v2/tasks/${task}`);
    const body = read.status === 200 ? read.body as { status?: string; updated_at?: string } : {};
    return { image, task, status: body.status, updatedAtMs: body.updated_at === undefined ? undefined : Date.parse(asUtcTimestamp(body.updated_at)) };
  }));
  const glanceOutages = windows.filter((w) => w.kind === 'glance-outage' && w.to !== undefined)
    .map((w) => ({ fromMs: runStart + w.from * 1000, toMs: runStart + w.to! * 1000 }));
  const leftByOutage = locksLeftByOutage(locks.filter((lock): lock is LockSeen => lock !== undefined), glanceOutages);
  history.add('final-locks', { locks: locks.filter((lock) => lock !== undefined), glance_outages: glanceOutages, left_by_outage: leftByOutage });
  check('budgets met at the end', budgetsUnmet(finalVerdicts, new Set(leftByOutage)), finalVerdicts.length);

  const seen = await readLocations();
  if (seen !== undefined) check('no last location removed', lastLocationsRemoved(lastSeen, seen));
  const fenced: { image: string; store: string; fence: string }[] = [];
  const hashes: { image: string; store: string; expected: string; actual: string | undefined }[] = [];
  for (const image of images.filter((i) => i.deletedAt === undefined)) {
    const read = await readImage(image.id);
    const stores = storesOf(read);
    for (const site of ['site-a', 'site-b'] as const) {
      if (!stores.includes(site)) continue;
      const fence = ceph(site, 'rbd', ['image-meta', 'get', `images/${image.id}`, 'ferry.evicting'], 'admin');
      if (fence.code === 0) fenced.push({ image: image.id, store: site, fence: fence.stdout.trim() });
      let actual: string | undefined;
      try {
        actual = sha512OfSnapshot(site, image.id);
      } catch {
        actual = undefined;
      }
      hashes.push({ image: image.id, store: site, expected: String(read.os_hash_value), actual });
    }
  }
  check('no fence left after its run', fencesLeft(fenced), Math.max(1, hashes.length));
  check('no bytes differing from Glance\'s hash', hashMismatches(hashes), Math.max(1, hashes.length));

  const rss = await Promise.all(nodes.map(async (node) => ({ agent: node.hostname, warmKiB: node.warmRssKiB ?? Number.NaN,
    endKiB: (node.packaged ? await node.packaged.rssKiB() : rssKiB(node.agent?.child.pid)) ?? Number.NaN })));
  history.add('rss-end', { rss });
  const measured = rss.filter((r) => !Number.isNaN(r.warmKiB) && !Number.isNaN(r.endKiB));
  check('agent RSS flat (≤ 20 %)', rssGrown(measured), Math.max(1, measured.length));

  // ---- stop what the soak started, then look for what it left ----
  const pids = nodes.flatMap((node) => [node.agent?.child.pid, node.nova.child.pid, ...(node.packaged?.pids ?? [])]).filter((pid): pid is number => pid !== undefined);
  for (const node of nodes) {
    await node.nova.stop();
    await node.agent?.stop();
    // The clean system by its own script (scripts/systemd/down); what it leaves is looked for below with the rest.
    const down = node.packaged?.down();
    if (down !== undefined) history.add('packaged-node-down', { code: down.code, ...(down.code !== 0 ? { output: `${down.stdout}${down.stderr}`.slice(-500) } : {}) });
  }
  await proxy.close();
  nova.cleanup();
  // ---- clean up the cloud (the soak's images, planted copies Glance never took, the snapshot's disk), then look for
  // what is left: Glance keeps a failed copy's staged data until the image is deleted (shared/reference), so staging
  // is judged after the deletes ----
  for (const leftover of planted.filter((p) => p.removedAt === undefined)) {
    if (!storesOf(await readImage(leftover.image)).includes(leftover.site)) ceph(leftover.site, 'rbd', ['rm', '--no-progress', `images/${leftover.image}`], 'admin');
  }
  for (const image of images.filter((i) => i.deletedAt === undefined)) {
    await waitUnlocked(image.id, 30_000);
    await deleteImage(image.id, image.owner);
  }
  if (snapshot.disk) removeSnapshotDisk(snapshot.disk);
  await sleep(5000);
  const alive = (pid: number): boolean => { try { process.kill(pid, 0); return true; } catch { return false; } };
  const ours = (site: Site, pool: string): string[] => ceph(site, 'rbd', ['ls', pool], 'admin').stdout.split('\n')
    .filter((name) => name.startsWith(prefix) || images.some((image) => name.includes(image.id)));
  const staging = join(facts.dir, 'glance', 'staging');
  const left = {
    processes: pids.filter(alive).map((pid) => `pid ${pid}`),
    sockets: readdirSync(join(work, 'sockets')),
    rbdImages: (['site-a', 'site-b'] as const).flatMap((site) => [...ours(site, 'vms'), ...ours(site, 'images')].map((name) => `${site} ${name}`)),
    staging: existsSync(staging) ? readdirSync(staging).filter((name) => images.some((image) => name.includes(image.id))) : [],
  };
  check('no leaks', leaks(left), pids.length + 4);
  history.add('end', { violations: violations.length });

  // ---- the alerts: the shipped rules on the scraped metrics (promtool), judged against the outages ----
  const alerts = evaluateAlerts(scrapeFile, options.out, windows.map((w) => ({ kind: w.kind, from: w.from + tOffset, to: (w.to ?? at()) + tOffset })),
    startedAt, planted.map((p) => ({ site: p.site, from: p.at + tOffset, removedAt: p.removedAt === undefined ? undefined : p.removedAt + tOffset })),
    nodes.map((node) => node.hostname));
  history.add('alerts', { ...alerts });
  check('alerts: fire in outages, clear after, none falsely', alerts.problems, Math.max(1, alerts.rows.length));

  const boots = bootRecords;
  const report: SoakReport = {
    seed: options.seed, minutes: options.minutes, startedAt: new Date(startedAt).toISOString(),
    nodes: `${nodes.length} compute nodes (${perSite} per site, two sites), each a real \`ferry agent\` (${packagedIndex === undefined
      ? 'plain processes' : `plain processes but ${nodes[packagedIndex]?.hostname}: the .deb's units in the clean system's systemd`}, ferry's least-privilege identity) and nova 26's patched Rbd.clone()`,
    boots, faults: countByKind(injected), jobs: countByKind(jobs),
    invariants: INVARIANTS.map((name) => ({ name, checks: checks.get(name) ?? 0, violations: violations.filter((v) => v.invariant === name).length })),
    alerts: alerts.rows,
    load: { min: Math.min(...loads, Number.POSITIVE_INFINITY), mean: loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length), max: Math.max(...loads, 0) },
    notes: [`history: ${history.file} (${history.entries.length} events); set-up took ${tOffset.toFixed(0)} s (nova imported once per node)`,
      ...(packagedIndex === undefined ? [`**NO PACKAGED NODE: the package upgrade was not injected** (${noPackage})`]
        : upgrades.map((u) => `package-upgrade of ${nodes[packagedIndex]?.hostname} at ${u.from.toFixed(0)} s: apt-get install ${u.seconds?.toFixed(1) ?? '?'} s `
          + `${u.rolledBackSeconds === undefined ? '' : `after dpkg -i of the older build (${u.rolledBackSeconds.toFixed(1)} s) `}`
          + `(${((u.to ?? u.from) - u.from).toFixed(0)} s with the checks); that node's boots during it: ${u.boots.length}, `
          + `${u.boots.filter((b) => b.ok).length} ok (${u.boots.map((b) => `${b.route} ${b.seconds.toFixed(1)} s`).join(', ') || 'none'})`))],
  };
  const markdown = renderReport(report);
  writeFileSync(join(options.out, 'report.md'), markdown);
  writeFileSync(join(options.out, 'report.json'), `${JSON.stringify({ ...report, violations }, null, 2)}\n`);
  const passed = violations.length === 0;
  return { passed, violations, report, markdown, historyFile: history.file,
    ...(passed ? {} : { failure: failureText(options.seed, options.minutes, violations, history.entries) }) };
}
