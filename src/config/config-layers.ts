import type { ConfigIssues } from './config-issues.js';
import type { ConfigOptionSpec } from './config-options.js';
import { envSource, flagSource, type ConfigSource, type Sourced } from './config-source.js';
import type { CloudLayer } from './load-cloud.js';

/** Flags rank above variables, variables above clouds.yaml (nova.conf and defaults are the caller's fallbacks). */
type Rank = 0 | 1 | 2;

interface Candidate {
  readonly raw: unknown;
  readonly source: ConfigSource;
  readonly rank: Rank;
  readonly negated: boolean;
}

export type FlagValues = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;
export type EnvValues = Readonly<Record<string, string | undefined>>;

/**
 * The three layers an operator types into (flags, environment, the chosen cloud of clouds.yaml), read through
 * option specs. A present but invalid value is reported to `issues` and reads as absent, so resolution can go on
 * and report every problem at once.
 *
 * What counts as present: a flag with a string value or `true` (a bare flag left unset may arrive as `false` or
 * `undefined`: both mean "not given"; a repeated flag counts once, its last value, except for pickAll); a non-empty variable (an exported but empty `OS_REGION_NAME=` is unset, as in
 * the openstack CLI); a non-empty clouds.yaml value.
 */
export class ConfigLayers {
  readonly #flags: ReadonlyMap<string, string | true>;
  /** Every value of each flag given as a list (a repeatable flag), in order. */
  readonly #flagLists: ReadonlyMap<string, readonly string[]>;

  constructor(private readonly given: FlagValues, private readonly env: EnvValues, private readonly issues: ConfigIssues,
    readonly cloud?: CloudLayer) {
    const normalized = new Map<string, string | true>();
    const lists = new Map<string, readonly string[]>();
    for (const [name, value] of Object.entries(given)) {
      // A repeated flag: the last one wins, as with argparse (pickAll reads them all).
      const single = Array.isArray(value) ? (value as readonly string[]).at(-1) : value as string | boolean | undefined;
      if (single === undefined || single === false) continue;
      normalized.set(normalizeFlagName(name), single);
      lists.set(normalizeFlagName(name), Array.isArray(value) ? value as readonly string[] : [single as string]);
    }
    this.#flags = normalized;
    this.#flagLists = lists;
  }

  withCloud(cloud: CloudLayer | undefined): ConfigLayers {
    return new ConfigLayers(this.given, this.env, this.issues, cloud);
  }

  /**
   * A repeatable option: every value of the highest-ranked layer that has one. A flag given n times gives n values
   * in order; a variable holds a list separated by `:` (as PATH does). Invalid values are reported and left out.
   */
  pickAll<T>(spec: ConfigOptionSpec<T>): readonly Sourced<T>[] {
    const first = this.candidates(spec)[0];
    if (first === undefined) return [];
    const raws = first.source.kind === 'flag'
      ? this.#flagLists.get(spec.flag ?? '') ?? [first.raw]
      : first.source.kind === 'env' && typeof first.raw === 'string' ? first.raw.split(':').filter((p) => p !== '') : [first.raw];
    return raws.flatMap((raw) => {
      const parsed = this.parse(spec, { ...first, raw });
      return parsed === undefined ? [] : [parsed];
    });
  }

  /** The value of the highest-ranked layer that has one. */
  pick<T>(spec: ConfigOptionSpec<T>): Sourced<T> | undefined {
    const first = this.candidates(spec)[0];
    return first === undefined ? undefined : this.parse(spec, first);
  }

  /**
   * One thing given by id or by name (a project, a domain, an application credential): the highest-ranked layer
   * that names it decides, so `--os-project-name` beats a `project_id` in clouds.yaml instead of being silently
   * outranked by it. Within one layer the id wins, as in Keystone.
   */
  pickPair<T>(idSpec: ConfigOptionSpec<T>, nameSpec: ConfigOptionSpec<T>):
    { readonly by: 'id' | 'name'; readonly value: T; readonly source: ConfigSource } | undefined {
    const id = this.candidates(idSpec)[0];
    const name = this.candidates(nameSpec)[0];
    if (id !== undefined && (name === undefined || id.rank <= name.rank)) {
      const parsed = this.parse(idSpec, id);
      return parsed === undefined ? undefined : { by: 'id', ...parsed };
    }
    if (name === undefined) return undefined;
    const parsed = this.parse(nameSpec, name);
    return parsed === undefined ? undefined : { by: 'name', ...parsed };
  }

  /** Whether any layer sets the option (valid or not). */
  has(spec: ConfigOptionSpec<unknown>): boolean {
    return this.candidates(spec).length > 0;
  }

  private candidates(spec: ConfigOptionSpec<unknown>): Candidate[] {
    const found: Candidate[] = [];
    if (spec.flag !== undefined) {
      const value = this.#flags.get(spec.flag);
      if (value !== undefined) found.push({ raw: value, source: flagSource(spec.flag), rank: 0, negated: false });
    }
    for (const name of spec.env ?? []) {
      const value = this.env[name];
      if (value !== undefined && value !== '') found.push({ raw: value, source: envSource(name), rank: 1, negated: false });
    }
    const cloudKeys = [...(spec.clouds ?? []).map((k) => ({ k, negated: false })),
      ...(spec.cloudsNegated ?? []).map((k) => ({ k, negated: true }))];
    for (const { k, negated } of cloudKeys) {
      const value = this.cloud?.get(k);
      if (value !== undefined && value.value !== '') found.push({ raw: value.value, source: value.source, rank: 2, negated });
    }
    return found;
  }

  private parse<T>(spec: ConfigOptionSpec<T>, candidate: Candidate): Sourced<T> | undefined {
    const result = spec.type.parse(candidate.raw);
    if (!result.ok) {
      this.issues.invalidValue(candidate.source, spec.type.expected, candidate.raw, spec.secret === true);
      return undefined;
    }
    // Only boolean options list negated keys (`verify` for `insecure`).
    const value = candidate.negated && typeof result.value === 'boolean' ? (!result.value as T) : result.value;
    return { value, source: candidate.source };
  }
}

/** `osAuthUrl` (commander's camelCase), `--os-auth-url` and `os-auth-url` are the same flag. */
export function normalizeFlagName(name: string): string {
  return name.replace(/^-+/, '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
