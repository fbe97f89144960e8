import { z } from 'zod';
import type { CloudsSearchPath } from './clouds-search-path.js';
import type { ConfigIssues } from './config-issues.js';
import { cloudsFileLabel, cloudsSource, derivedSource, type CloudsFileRef, type ConfigSource, type Sourced } from './config-source.js';
import { parseCloudsYaml, type YamlTree } from './parse-clouds-yaml.js';

/** The chosen cloud of clouds.yaml, with secure.yaml merged on top (its values win, as in openstacksdk). */
export interface CloudLayer {
  readonly name: string;
  readonly selectedBy: ConfigSource;
  readonly cloudsFile?: string;
  readonly secureFile?: string;
  /** Region names from the cloud's `regions` list (the first is the default region). */
  readonly regions: readonly string[];
  /** A value by its path in the cloud entry (`auth.auth_url`, `region_name`). */
  get(keyPath: string): Sourced<YamlTree> | undefined;
}

export interface LoadCloudInput {
  /** From --os-cloud or OS_CLOUD. */
  readonly requested: Sourced<string> | undefined;
  /** With no cloud requested and no OS_* credentials set, a lone cloud in clouds.yaml is used (openstacksdk). */
  readonly implicit: boolean;
  readonly search: CloudsSearchPath;
  readonly readFile: (path: string) => string | undefined;
  readonly issues: ConfigIssues;
}

interface LoadedFile {
  readonly ref: CloudsFileRef;
  readonly clouds: Readonly<Record<string, YamlTree>>;
}

const fileSchema = z.looseObject({
  clouds: z.record(z.string(), z.unknown(), { error: 'a mapping of cloud names to settings' }).optional(),
}, { error: "a mapping with a 'clouds' key" });

const REGIONS_EXPECTED = { error: "a list of region names (per-region 'values' are not supported)" };

const cloudSchema = z.looseObject({
  auth: z.record(z.string(), z.unknown(), { error: 'a mapping' }).optional(),
  regions: z.array(z.union([z.string(), z.strictObject({ name: z.string(REGIONS_EXPECTED) }, REGIONS_EXPECTED)], REGIONS_EXPECTED),
    REGIONS_EXPECTED).optional(),
}, { error: 'a mapping' });

/** Find, parse and check clouds.yaml and secure.yaml, then pick the cloud. Problems go to `issues`. */
export function loadCloud(input: LoadCloudInput): CloudLayer | undefined {
  const { requested, issues } = input;
  if (requested === undefined && !input.implicit) return undefined;
  const clouds = readFirst('clouds', input);
  const secure = readFirst('secure', input);
  if (clouds === 'invalid' || secure === 'invalid') return undefined;
  const files = [secure, clouds].filter((f): f is LoadedFile => f !== undefined);
  const names = [...new Set(files.flatMap((f) => Object.keys(f.clouds)))];

  let name: string;
  let selectedBy: ConfigSource;
  if (requested !== undefined) {
    if (!names.includes(requested.value)) {
      issues.add(requested.source, notFoundMessage(requested, files, input.search));
      return undefined;
    }
    name = requested.value;
    selectedBy = requested.source;
  } else {
    const only = names[0];
    if (only === undefined || names.length !== 1) return undefined;
    name = only;
    selectedBy = derivedSource(`the only cloud in ${files.map((f) => cloudsFileLabel(f.ref)).join(' + ')}`);
  }

  const entries: { ref: CloudsFileRef; entry: Readonly<Record<string, YamlTree>> }[] = [];
  for (const file of files) {
    const entry = file.clouds[name];
    if (entry === undefined) continue;
    const checked = cloudSchema.safeParse(entry);
    if (!checked.success) {
      reportSchemaProblem(issues, checked.error, entry, (path) => cloudsSource(file.ref, name, path));
      return undefined;
    }
    entries.push({ ref: file.ref, entry: entry as Readonly<Record<string, YamlTree>> });
  }
  const regionsTree = entries.map((e) => e.entry.regions).find((r) => r !== undefined);
  const regions = Array.isArray(regionsTree)
    ? regionsTree.map((r: YamlTree) => (typeof r === 'string' ? r : String((r as { name: string }).name)))
    : [];
  return {
    name,
    selectedBy,
    ...(clouds === undefined ? {} : { cloudsFile: clouds.ref.path }),
    ...(secure === undefined ? {} : { secureFile: secure.ref.path }),
    regions,
    get(keyPath) {
      for (const { ref, entry } of entries) {
        const found = lookup(entry, keyPath.split('.'));
        if (found !== undefined) return { value: found, source: cloudsSource(ref, name, keyPath) };
      }
      return undefined;
    },
  };
}

function readFirst(kind: 'clouds' | 'secure', input: LoadCloudInput): LoadedFile | 'invalid' | undefined {
  for (const path of input.search[kind]) {
    const text = input.readFile(path);
    if (text === undefined) continue;
    const ref: CloudsFileRef = { kind, path };
    const parsed = parseCloudsYaml(text);
    const fileSource = { kind: 'file', label: cloudsFileLabel(ref) } as const;
    if (!parsed.ok) {
      input.issues.add(fileSource, `${cloudsFileLabel(ref)} line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`);
      return 'invalid';
    }
    const checked = fileSchema.safeParse(parsed.tree);
    if (!checked.success) {
      reportSchemaProblem(input.issues, checked.error, parsed.tree,
        (p) => ({ kind: 'file', label: `${cloudsFileLabel(ref)}${p === '' ? '' : ` ${p}`}` }));
      return 'invalid';
    }
    return { ref, clouds: (checked.data.clouds ?? {}) as Readonly<Record<string, YamlTree>> };
  }
  return undefined;
}

function reportSchemaProblem(issues: ConfigIssues, error: z.ZodError, tree: unknown,
  sourceAt: (path: string) => ConfigSource): void {
  const problem = error.issues[0];
  if (problem === undefined) return;
  // The value at the failing path, for "got …": walk the tree, stopping where the path stops resolving.
  const path = problem.path.map(String);
  const got = lookup(tree, path);
  issues.invalidValue(sourceAt(path.join('.')), problem.message, got);
}

function lookup(tree: unknown, path: readonly string[]): YamlTree | undefined {
  let node: unknown = tree;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node as YamlTree | undefined;
}

function notFoundMessage(requested: Sourced<string>, files: readonly LoadedFile[], search: CloudsSearchPath): string {
  const what = `${requested.source.label}: cloud '${requested.value}'`;
  if (files.length === 0) return `${what} was requested, but no clouds.yaml was found (searched ${describeCandidates(search.clouds)})`;
  const defined = [...new Set(files.flatMap((f) => Object.keys(f.clouds)))];
  return `${what} is not defined in ${files.map((f) => cloudsFileLabel(f.ref)).reverse().join(' or ')}; `
    + (defined.length === 0 ? 'it defines no clouds' : `clouds defined there: ${defined.join(', ')}`);
}

/** `/etc/openstack/clouds.{yaml,yml,json}` instead of three paths. */
function describeCandidates(paths: readonly string[]): string {
  const stems: string[] = [];
  for (const path of paths) {
    const stem = path.replace(/\/clouds\.(yaml|yml|json)$/, '/clouds.{yaml,yml,json}');
    if (!stems.includes(stem)) stems.push(stem);
  }
  return stems.join(', ');
}
