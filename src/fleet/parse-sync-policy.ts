import { isMap, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { STORE_NAME_RULE, storeNameSchema } from '../config/store-name.js';
import { FerryError } from '../errors/ferry-error.js';
import { VISIBILITIES, type PrewarmSelection } from './prewarm-selection.js';
import { parseDuration } from '../clock/parse-duration.js';
import { parseBudget } from './store-budget.js';
import { buildStoreCluster } from './store-cluster.js';
import { USAGE_DEFAULT_DAYS, USAGE_MEASURES, type PolicyPosition, type StorePolicy, type SyncPlacement, type SyncPolicy, type UsageRule } from './sync-policy.js';

// The YAML is read with the failsafe schema: every scalar stays the string written. Glance properties are strings,
// and YAML's number and boolean guessing would turn `os_version: 22.10` into 22.1 and `name: no` into false.
const text = z.string().trim().min(1, 'must not be empty');
const storeName = storeNameSchema(`a store name is ${STORE_NAME_RULE}`);
const selectorSchema = z.strictObject({
  ids: z.array(text).min(1, 'list at least one image ID').optional(),
  names: z.array(text).min(1, 'list at least one image name').optional(),
  tag: text.optional(),
  properties: z.record(text, text).optional(),
  all: z.literal('true', { error: 'all takes only true' }).optional(),
  visibility: z.enum(VISIBILITIES, { error: `must be one of ${VISIBILITIES.join(', ')}` }).optional(),
}).superRefine((selector, issues) => {
  const named = selector.ids !== undefined || selector.names !== undefined;
  const filtered = selector.tag !== undefined || selector.properties !== undefined;
  const modes = [named, filtered, selector.all !== undefined].filter(Boolean).length;
  if (modes !== 1) {
    issues.addIssue({ code: 'custom', message: modes === 0
      ? 'select images with ids/names, or tag/properties, or all: true'
      : 'select images one way: ids/names, or tag/properties (which combine), or all: true' });
  }
  if (named && selector.visibility !== undefined) {
    issues.addIssue({ code: 'custom', path: ['visibility'], message: 'visibility filters a listing; it does not go with ids/names' });
  }
});
const placementSchema = z.strictObject({
  name: text.optional(),
  images: selectorSchema,
  stores: z.array(storeName).min(1, 'list at least one store'),
});
/** A value checked by the parser that also reads it later (a budget, a duration): its message becomes the issue. */
const checkedBy = (read: (value: string) => unknown) => text.superRefine((value, issues) => {
  try {
    read(value);
  } catch (error) {
    issues.addIssue({ code: 'custom', message: error instanceof Error ? error.message.replace(/^--\S+ /, '') : String(error) });
  }
});
const count = z.string().regex(/^[1-9]\d{0,5}$/, 'must be a whole number from 1');
const storeSettingsSchema = z.strictObject({
  budget: checkedBy((value) => parseBudget(value)).optional(),
  budget_of: z.enum(['pool', 'cluster'], { error: 'must be pool or cluster' }).optional(),
  idle: checkedBy((value) => parseDuration(value, '--idle')).optional(),
  grace: checkedBy((value) => parseDuration(value, '--grace')).optional(),
  ceph_conf: text.optional(),
  rbd_user: text.optional(),
  pool: text.optional(),
});
const usageRuleSchema = z.strictObject({
  name: text.optional(),
  keep_most_used: count,
  by: z.enum(USAGE_MEASURES, { error: `must be one of ${USAGE_MEASURES.join(', ')}` }).optional(),
  days: count.optional(),
  stores: z.array(storeName).min(1, 'list at least one store').optional(),
  owners: z.lazy(() => projectIds),
});
// Keystone project IDs, as Glance writes an image's owner; `*` for every project (project-owners.ts)
const projectIds = z.array(text.regex(/^[^\s,]+$/, 'a project ID, as Glance shows an image\'s owner (openstack project show NAME -f value -c id), or * for every project'))
  .min(1, 'list at least one project ID').optional();
const policySchema = z.strictObject({
  version: z.literal('1', { error: 'the only policy version is 1' }),
  placements: z.array(placementSchema).min(1, 'list at least one placement').optional(),
  stores: z.record(storeName, storeSettingsSchema).optional(),
  usage: z.array(usageRuleSchema).min(1, 'list at least one usage rule').optional(),
  pin_owners: projectIds,
  remove_owners: projectIds,
}).superRefine((policy, issues) => {
  if (policy.placements === undefined && policy.usage === undefined) {
    issues.addIssue({ code: 'custom', path: ['placements'], message: 'list at least one placement (or a usage rule)' });
  }
  for (const [store, settings] of Object.entries(policy.stores ?? {})) {
    if (settings.ceph_conf === undefined && (settings.budget !== undefined || settings.rbd_user !== undefined || settings.pool !== undefined)) {
      issues.addIssue({ code: 'custom', path: ['stores', store, 'ceph_conf'], message: 'a budget needs the store\'s cluster: name its ceph.conf' });
    }
  }
  for (const [index, rule] of (policy.usage ?? []).entries()) {
    if (rule.stores === undefined && Object.keys(policy.stores ?? {}).length === 0) {
      issues.addIssue({ code: 'custom', path: ['usage', index, 'stores'], message: 'name the stores, here or in stores:' });
    }
  }
});

export const POLICY_HINT = 'Fix the policy file; its format is described in docs/prewarm.md ("Policy format").';

/**
 * Parse and validate a sync policy (YAML). Every error is FERRY_INVALID_CONFIG naming the file, line, column and field:
 * `edge.yaml:7:15: placements[1].stores[0]: a store name is letters, digits, _ . - only`.
 */
export function parseSyncPolicy(source: string, name = 'policy'): SyncPolicy {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, schema: 'failsafe', uniqueKeys: true, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax !== undefined) {
    const { line, col } = lineCounter.linePos(syntax.pos[0]);
    throw invalid(name, { line, column: col }, undefined, syntax.message.split('\n')[0] ?? syntax.message);
  }
  const parsed = policySchema.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    // A misspelt key also leaves a required one missing: name the misspelling, it is the cause.
    const issues = parsed.error.issues;
    const issue = issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? issues[0]!;
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const path = keys.length > 0 ? [...issue.path, keys[0]!] : issue.path;
    const message = keys.length > 0 ? `unknown field '${keys[0]}'` : issue.message;
    throw invalid(name, positionOf(doc, path, lineCounter, keys.length > 0), describePath(path), message);
  }
  const placements = (parsed.data.placements ?? []).map((placement, index): SyncPlacement => {
    const { images } = placement;
    const refs = [...(images.ids ?? []), ...(images.names ?? [])];
    const selection: PrewarmSelection = {
      ...(refs.length > 0 ? { images: refs } : {}),
      ...(images.tag === undefined ? {} : { tag: images.tag }),
      ...(images.properties === undefined ? {} : { properties: images.properties }),
      ...(images.all === undefined ? {} : { all: true }),
      ...(images.visibility === undefined ? {} : { visibility: images.visibility }),
    };
    return Object.freeze({
      name: placement.name ?? `placement ${index + 1}`,
      selection: Object.freeze(selection),
      stores: Object.freeze([...placement.stores]),
      position: positionOf(doc, ['placements', index], lineCounter, false) ?? { line: 1, column: 1 },
      storePositions: Object.freeze(placement.stores.map((_, s) =>
        positionOf(doc, ['placements', index, 'stores', s], lineCounter, false) ?? { line: 1, column: 1 })),
    });
  });
  const stores = new Map(Object.entries(parsed.data.stores ?? {}).map(([store, settings]): [string, StorePolicy] => [store, storePolicyOf(settings, store,
    positionOf(doc, ['stores', store], lineCounter, true) ?? { line: 1, column: 1 })]));
  const usage = (parsed.data.usage ?? []).map((rule, index): UsageRule => Object.freeze({
    name: rule.name ?? `usage rule ${index + 1}`, keepMostUsed: Number(rule.keep_most_used), by: rule.by ?? 'clones',
    days: Number(rule.days ?? USAGE_DEFAULT_DAYS), stores: Object.freeze([...(rule.stores ?? stores.keys())]),
    ...(rule.owners === undefined ? {} : { owners: Object.freeze([...rule.owners]) }),
    position: positionOf(doc, ['usage', index], lineCounter, false) ?? { line: 1, column: 1 },
  }));
  return Object.freeze({ source: name, placements: Object.freeze(placements), stores, usage: Object.freeze(usage),
    ...(parsed.data.pin_owners === undefined ? {} : { pinOwners: Object.freeze([...parsed.data.pin_owners]) }),
    ...(parsed.data.remove_owners === undefined ? {} : { removeOwners: Object.freeze([...parsed.data.remove_owners]) }) });
}

function storePolicyOf(settings: z.infer<typeof storeSettingsSchema>, store: string, position: PolicyPosition): StorePolicy {
  const budgetOf = settings.budget_of ?? 'pool';
  return Object.freeze({
    store, position,
    ...(settings.budget === undefined ? {} : { budget: parseBudget(settings.budget, budgetOf) }),
    ...(settings.idle === undefined ? {} : { idleMs: parseDuration(settings.idle, '--idle') }),
    ...(settings.grace === undefined ? {} : { graceMs: parseDuration(settings.grace, '--grace') }),
    ...(settings.ceph_conf === undefined ? {} : { cluster: buildStoreCluster(undefined, { confFile: settings.ceph_conf, user: settings.rbd_user }, settings.pool) }),
  });
}

/** The error for a policy that names something wrong, at a known place (an unknown store, found later). */
export function policyError(policy: Pick<SyncPolicy, 'source'>, position: PolicyPosition | undefined, field: string | undefined,
  message: string, hint = POLICY_HINT): FerryError {
  return invalid(policy.source, position, field, message, hint);
}

function invalid(source: string, position: PolicyPosition | undefined, field: string | undefined, message: string, hint = POLICY_HINT): FerryError {
  const where = position === undefined ? source : `${source}:${position.line}:${position.column}`;
  return new FerryError('FERRY_INVALID_CONFIG', `${where}: ${field === undefined || field === '' ? '' : `${field}: `}${message}`, hint,
    { file: source, line: position?.line, column: position?.column, field });
}

/** The node at `path` (its key, for an unknown key), or the nearest ancestor that exists. */
function positionOf(doc: Document, path: readonly PropertyKey[], lineCounter: LineCounter, atKey: boolean): PolicyPosition | undefined {
  for (let depth = atKey ? path.length - 1 : path.length; depth >= 0; depth -= 1) {
    const prefix = path.slice(0, depth);
    const node = prefix.length === 0 ? doc.contents : doc.getIn(prefix, true);
    let offset: number | undefined;
    if (atKey && depth === path.length - 1 && isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === path[depth]);
      offset = isPair(pair) && isScalar(pair.key) ? pair.key.range?.[0] : undefined;
    } else if (node !== null && typeof node === 'object' && 'range' in node && Array.isArray(node.range)) {
      offset = node.range[0] as number | undefined;
    }
    if (offset !== undefined) {
      const { line, col } = lineCounter.linePos(offset);
      return { line, column: col };
    }
  }
  return undefined;
}

function describePath(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}
