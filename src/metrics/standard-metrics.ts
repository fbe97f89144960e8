import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client';
import { FERRY_VERSION } from './ferry-version.js';

/**
 * prom-client's default metrics under their standard names (process_*, nodejs_*), so stock Node.js dashboards and
 * alerts find them. Its three `nodejs_active_*_total` series are gauges whose name says counter: Prometheus's own
 * lint (`promtool check metrics`) rejects that, so they are left out. Nothing is lost: the labelled
 * `nodejs_active_handles` / `_requests` / `_resources` gauges stay, and their sum is the total.
 */
export function collectStandardMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
}

const GAUGES_NAMED_LIKE_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;

/**
 * `<prefix>_build_info`: always 1, its labels say what runs (the usual Prometheus idiom: join on it, count versions
 * across a fleet).
 */
export function registerBuildInfo(registry: Registry, prefix: string): Gauge<'version' | 'node_version' | 'platform' | 'arch'> {
  const gauge = new Gauge({ name: `${prefix}_build_info`, help: `ferry's version and the Node.js running it (always 1)`,
    labelNames: ['version', 'node_version', 'platform', 'arch'] as const, registers: [registry] });
  gauge.set({ version: FERRY_VERSION, node_version: process.versions.node, platform: process.platform, arch: process.arch }, 1);
  return gauge;
}
