// The operator's view during the soak: the shipped alert rules (packaging/monitoring/ferry-alerts.yml) evaluated by
// promtool on the metrics scraped during the run. The scrapes become promtool's input series (pure); promtool says
// which alerts fire at each minute (its test's "got"); the outages of the history say which should (pure).

/** One scrape of one target: when, the target's labels, whether it answered, the exposition text. */
export interface Scrape {
  readonly t: number;
  readonly job: string;
  readonly instance: string;
  readonly site?: string;
  readonly up: boolean;
  readonly text: string;
}

/** Parse the Prometheus text format's samples (comments skipped; the optional timestamp ignored). */
export function parseSamples(text: string): { series: string; value: string }[] {
  const samples: { series: string; value: string }[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)/.exec(line);
    if (match) samples.push({ series: `${match[1]}${match[2] ?? ''}`, value: match[3]! });
  }
  return samples;
}

/** A series with the target's labels added (job, instance, site), as Prometheus' scrape adds them. */
function withTargetLabels(series: string, scrape: Scrape): string {
  const labels = [`job="${scrape.job}"`, `instance="${scrape.instance}"`, ...(scrape.site ? [`site="${scrape.site}"`] : [])];
  const open = series.indexOf('{');
  if (open < 0) return `${series}{${labels.join(',')}}`;
  const inner = series.slice(open + 1, -1);
  return `${series.slice(0, open)}{${[inner, ...labels].filter((part) => part !== '').join(',')}}`;
}

/**
 * promtool's input series: one column per scrape round (`intervalSeconds` apart, from the first scrape), `_` where a
 * series had no sample (a target down, a series not yet born), and `up` for every target. A series a target's scrape
 * had and its next one has not (it left the exposition, or the scrape failed) is `stale` there, as Prometheus marks it:
 * with `_` promtool kept its last value for the 5-minute lookback, so one scrape's `check="probe"} 0` (a health round
 * that timed out at load 30) fired FerryAgentUnhealthy, whose `for: 5m` a real Prometheus would never have met.
 */
export function inputSeries(scrapes: readonly Scrape[], intervalSeconds: number): { series: string; values: string }[] {
  if (scrapes.length === 0) return [];
  const first = Math.min(...scrapes.map((s) => s.t));
  const rounds = Math.max(...scrapes.map((s) => Math.round((s.t - first) / 1000 / intervalSeconds))) + 1;
  const table = new Map<string, string[]>();
  const put = (series: string, round: number, value: string): void => {
    const row = table.get(series) ?? Array.from({ length: rounds }, () => '_');
    row[round] = value === 'NaN' ? '_' : value === '+Inf' ? 'Inf' : value;
    table.set(series, row);
  };
  const lastSeen = new Map<string, Set<string>>();
  for (const scrape of [...scrapes].sort((a, b) => a.t - b.t)) {
    const round = Math.round((scrape.t - first) / 1000 / intervalSeconds);
    const target = `${scrape.job}\0${scrape.instance}`;
    const samples = scrape.up ? parseSamples(scrape.text).map((sample) => ({ ...sample, series: withTargetLabels(sample.series, scrape) })) : [];
    const seen = new Set(samples.map((sample) => sample.series));
    for (const gone of lastSeen.get(target) ?? []) {
      if (!seen.has(gone) && table.get(gone)?.[round] === '_') table.get(gone)![round] = 'stale';
    }
    lastSeen.set(target, seen);
    put(withTargetLabels('up', scrape), round, scrape.up ? '1' : '0');
    for (const sample of samples) put(sample.series, round, sample.value);
  }
  return [...table.entries()].map(([series, values]) => ({ series, values: values.join(' ') }));
}

/** A promtool test file (YAML is a superset of JSON): the series, and one empty expectation per alert and minute. */
export function promtoolTest(rulesFile: string, series: readonly { series: string; values: string }[], intervalSeconds: number,
  alertNames: readonly string[], minutes: number): string {
  const tests = [{
    interval: `${intervalSeconds}s`,
    input_series: series,
    alert_rule_test: Array.from({ length: minutes + 1 }, (_, m) => alertNames.map((alertname) => ({ eval_time: `${m}m`, alertname, exp_alerts: [] }))).flat(),
  }];
  return JSON.stringify({ rule_files: [rulesFile], evaluation_interval: '1m', tests }, null, 1);
}

/** From promtool's failures against empty expectations: which alerts (with labels) fired at which minute. */
export function firedFromPromtool(output: string): { minute: number; alertname: string; labels: string }[] {
  const fired: { minute: number; alertname: string; labels: string }[] = [];
  const blocks = output.split(/alertname: /).slice(1);
  for (const block of blocks) {
    const head = /^(\S+), time: (\S+),/.exec(block);
    if (!head) continue;
    const got = block.slice(block.indexOf('got:'));
    for (const match of got.matchAll(/Labels:\{([^}]*)\}/g)) {
      fired.push({ minute: minutesOf(head[2]!), alertname: head[1]!, labels: match[1]! });
    }
  }
  return fired;
}

function minutesOf(duration: string): number {
  const h = /(\d+)h/.exec(duration)?.[1];
  const m = /(\d+)m/.exec(duration)?.[1];
  return Number(h ?? 0) * 60 + Number(m ?? 0);
}

/** An outage of the run, in minutes from the first scrape. */
export interface OutageWindow { readonly kind: string; readonly from: number; readonly to: number }

/**
 * A warning the run expects outside any outage: a planted copy (`forged-copy`) makes every copy into its name fail
 * with FERRY_COPY_TARGET_EXISTS, which FerryCopiesFailing reports (a warning, the operator's cue) until the operator
 * removes it (the soak does, as docs/runbooks.md says) and the rule's 10-minute window has passed. In minutes.
 */
export interface ExpectedWarning {
  readonly alertname: string;
  /** Labels the firing must carry (`outcome`, `site`). */
  readonly labels: Readonly<Record<string, string>>;
  readonly from: number;
  readonly to: number;
}

/**
 * FerryCopiesFailing clears 10 min after the last failed copy (`increase(...[10m]) > 0`); one in flight at the removal
 * fails a moment after it, and promtool evaluates every minute: 12 min after the removal it must be clear.
 */
export const TARGET_EXISTS_CLEARS_MINUTES = 12;

/** The window in which a planted copy's warning may fire: from the planting to 12 min after its removal (or the end). */
export function plantedCopyWarning(planted: { site: string; from: number; removedAt: number | undefined }, lastMinute: number): ExpectedWarning {
  return { alertname: 'FerryCopiesFailing', labels: { outcome: 'FERRY_COPY_TARGET_EXISTS', site: planted.site }, from: planted.from,
    to: planted.removedAt === undefined ? lastMinute : planted.removedAt + TARGET_EXISTS_CLEARS_MINUTES };
}

/**
 * The ticket that says node_exporter reports no ferry-agent.socket for a host: true of every soak node (the soak scrapes
 * no node_exporter; FerryAgentDown cannot be judged here), so it may fire for any of them, from its `for: 1h` on, and
 * stay. Seen in a 60-minute run once no agent was restarted by the harness at 30 minutes any more.
 */
export function noNodeExporterTicket(host: string): ExpectedWarning {
  return { alertname: 'FerryAgentUnitStateMissing', labels: { host }, from: 0, to: Number.POSITIVE_INFINITY };
}

export interface AlertJudgement {
  /** Per outage: the alerts that fired during it (or within `afterMinutes` of its end). */
  readonly perOutage: { outage: OutageWindow; alerts: string[]; pages: number }[];
  /** Alerts that fired outside every outage (and its tail): false alarms. */
  readonly falseAlarms: string[];
  /** Alerts still firing at the last minute (an expected warning whose window reaches past the end is not). */
  readonly stillFiring: string[];
  /** Expected warnings that fired (within their windows), by alert and label set. */
  readonly expectedFired: string[];
}

export interface JudgeOptions {
  /** How long after an outage's end its alerts may still fire (min). Default 6. */
  readonly afterMinutes?: number;
  /** The pager route's group_by (pageGroupBy): a page is one group. Default: one per alert and label set. */
  readonly groupBy?: readonly string[] | undefined;
  readonly expected?: readonly ExpectedWarning[];
}

/** The labels of promtool's `Labels:{a="x", b="y"}` text as a map. */
function labelMap(labels: string): Map<string, string> {
  return new Map([...labels.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!] as const));
}

/**
 * Judge what fired against the outages: every firing belongs to an outage (from its start to `afterMinutes` after its
 * end) or is false. A page is a notification group of the pager's route: the critical alerts (the rule's severity) of
 * an outage counted once per value of the route's `group_by` labels (`pageGroupBy`), as Alertmanager groups them (a
 * label an alert lacks groups as empty). Without `groupBy`, once per alert and label set.
 */
export function judgeAlerts(fired: readonly { minute: number; alertname: string; labels: string }[], outages: readonly OutageWindow[],
  lastMinute: number, critical: ReadonlySet<string>, options: JudgeOptions = {}): AlertJudgement {
  const { afterMinutes = 6, groupBy, expected = [] } = options;
  const key = (f: { alertname: string; labels: string }): string => `${f.alertname}{${f.labels.replace(/alertname="[^"]*",?\s*/, '')}}`;
  const within = (f: { minute: number }, o: OutageWindow): boolean => f.minute >= o.from && f.minute <= o.to + afterMinutes;
  const group = (f: { alertname: string; labels: string }): string => {
    if (groupBy === undefined) return key(f);
    const labels = labelMap(f.labels);
    return groupBy.map((name) => `${name}=${name === 'alertname' ? f.alertname : labels.get(name) ?? ''}`).join(',');
  };
  const perOutage = outages.map((outage) => {
    const during = fired.filter((f) => within(f, outage));
    const alerts = [...new Set(during.map(key))];
    const pages = new Set(during.filter((f) => critical.has(f.alertname)).map(group)).size;
    return { outage, alerts, pages };
  });
  const expectedBy = (f: { minute: number; alertname: string; labels: string }): ExpectedWarning | undefined => {
    const labels = labelMap(f.labels);
    return expected.find((e) => e.alertname === f.alertname && f.minute >= e.from && f.minute <= e.to
      && Object.entries(e.labels).every(([name, value]) => labels.get(name) === value));
  };
  const falseAlarms = [...new Set(fired.filter((f) => !outages.some((o) => within(f, o)) && expectedBy(f) === undefined).map(key))];
  const stillFiring = [...new Set(fired.filter((f) => f.minute === lastMinute && !((expectedBy(f)?.to ?? -1) > lastMinute)).map(key))];
  const expectedFired = [...new Set(fired.filter((f) => expectedBy(f) !== undefined).map(key))];
  return { perOutage, falseAlarms, stillFiring, expectedFired };
}

/** The alerts of a rules file and their severities (the `- alert:` lines and the `severity:` label after each). */
export function alertSeverities(rulesYaml: string): Map<string, string> {
  const severities = new Map<string, string>();
  let current: string | undefined;
  for (const line of rulesYaml.split('\n')) {
    const alert = /^\s*- alert:\s*(\S+)/.exec(line)?.[1];
    if (alert) {
      current = alert;
      severities.set(alert, '');
    } else if (/^\s*- record:/.test(line)) {
      current = undefined;
    }
    const severity = /^\s*severity:\s*(\S+)/.exec(line)?.[1];
    if (current && severity) severities.set(current, severity);
  }
  return severities;
}

/**
 * The `group_by` of the pager's route in an Alertmanager configuration (packaging/monitoring/ferry-alertmanager.yml):
 * the first route under the top one that matches `severity="critical"`, else the top route's. Undefined when the file
 * names none (Alertmanager then groups everything of the route in one group: `[]`).
 */
export function pageGroupBy(config: unknown): string[] | undefined {
  type Route = { matchers?: unknown; group_by?: unknown; routes?: unknown };
  const top = (config as { route?: Route } | null)?.route;
  if (top === undefined) return undefined;
  const children = Array.isArray(top.routes) ? (top.routes as Route[]) : [];
  const pager = children.find((route) => Array.isArray(route.matchers) && (route.matchers as unknown[]).some((m) => /^severity\s*=\s*"?critical"?$/.test(String(m))));
  const groupBy = (pager ?? top).group_by ?? top.group_by;
  return Array.isArray(groupBy) ? groupBy.map(String) : undefined;
}
