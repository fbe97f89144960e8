import { z } from 'zod';
import { STORE_NAME_RULE, storeNameSchema } from './store-name.js';
import { ENDPOINT_INTERFACES, type EndpointInterface } from './ferry-config.js';

/**
 * How one raw value (a flag, a variable, a clouds.yaml scalar, a nova.conf value: all strings, flags may be `true`)
 * becomes a typed one. `expected` completes "expected …, got …" in messages.
 */
export interface OptionType<T> {
  readonly expected: string;
  parse(raw: unknown): { readonly ok: true; readonly value: T } | { readonly ok: false };
}

function fromSchema<T>(expected: string, schema: z.ZodType<T>): OptionType<T> {
  return {
    expected,
    parse(raw) {
      const result = schema.safeParse(raw);
      return result.success ? { ok: true, value: result.data } : { ok: false };
    },
  };
}

const TRUE_WORDS = ['true', 'yes', 'on', '1'];
const FALSE_WORDS = ['false', 'no', 'off', '0'];
const DECIMAL = /^\+?\d+(\.\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const nonEmpty = z.string().min(1);

const httpUrl = z.string().refine((value) => {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
});

/** oslo.config's Boolean type (case-insensitive); a bare boolean flag arrives as `true`. */
const bool = z.union([
  z.boolean(),
  z.string().transform((s) => s.trim().toLowerCase()).pipe(z.enum([...TRUE_WORDS, ...FALSE_WORDS]))
    .transform((s) => TRUE_WORDS.includes(s)),
]);

/** oslo.config's List type: comma-separated, items trimmed, empty items dropped; continuation lines allowed. */
const list = z.string().transform((s) => s.split(',').map((item) => item.trim()).filter((item) => item !== ''));

const INTERFACE_ALIASES: Readonly<Record<string, EndpointInterface>> = {
  public: 'public', internal: 'internal', admin: 'admin',
  publicURL: 'public', internalURL: 'internal', adminURL: 'admin', // keystoneauth's legacy endpoint_type names
};
const interfaceName = z.string().trim().refine((s) => s in INTERFACE_ALIASES)
  .transform((s) => INTERFACE_ALIASES[s] ?? 'public');

function seconds(minExclusiveZero: boolean) {
  return z.string().trim().regex(DECIMAL).transform((s) => Math.round(Number(s) * 1000))
    .refine((ms) => (minExclusiveZero ? ms >= 1 : ms >= 0) && Number.isSafeInteger(ms));
}

function integer(min: number) {
  return z.string().trim().regex(INTEGER).transform(Number).refine((n) => Number.isSafeInteger(n) && n >= min);
}

export const optionTypes = {
  text: fromSchema('a non-empty string', nonEmpty),
  /** nova.conf strings: anything, including '' (the caller decides what '' means). */
  anyText: fromSchema('a string', z.string()),
  path: fromSchema('a file path', nonEmpty),
  url: fromSchema('an http(s) URL', httpUrl),
  bool: fromSchema('a boolean (true/false, yes/no, on/off, 1/0)', bool),
  /** ferry's own durations: decimal seconds, converted once to milliseconds. */
  secondsToMs: fromSchema('a number of seconds > 0', seconds(true)),
  secondsOrZeroToMs: fromSchema('a number of seconds ≥ 0 (0 = no timeout)', seconds(false)),
  /** A duration with a safety floor (--rbd-quiet-time): refused below it rather than raised quietly. */
  secondsAtLeastToMs: (minSeconds: number): OptionType<number> =>
    fromSchema(`a number of seconds ≥ ${minSeconds}`, seconds(true).refine((ms) => ms >= minSeconds * 1000)),
  integer: (min: number): OptionType<number> => fromSchema(`an integer ≥ ${min}`, integer(min)),
  /** nova's IntOpt seconds, converted to milliseconds. */
  intSecondsToMs: (min: number, note = ''): OptionType<number> =>
    fromSchema(`an integer ≥ ${min}${note}`, integer(min).transform((n) => n * 1000)),
  oneOf: <const V extends string>(values: readonly V[]): OptionType<V> =>
    fromSchema(`one of ${values.join(', ')}`, z.string().trim().pipe(z.enum(values as [V, ...V[]]))),
  interface: fromSchema(`one of ${ENDPOINT_INTERFACES.join(', ')}`, interfaceName),
  list: fromSchema('a comma-separated list', list),
  interfaceList: fromSchema(`a comma-separated list of ${ENDPOINT_INTERFACES.join(', ')}`,
    list.pipe(z.array(interfaceName).min(1))),
  /** nova `[glance] api_servers`: like nova, an entry without a scheme means http://. */
  urlList: fromSchema('a comma-separated list of http(s) URLs',
    list.transform((items) => items.map((i) => (i.includes('//') ? i : `http://${i}`))).pipe(z.array(httpUrl).min(1))),
  fsid: fromSchema('a Ceph fsid (a UUID such as 6f0a2c1e-3b5d-4e8f-9a7b-1c2d3e4f5a6b)',
    z.string().trim().regex(UUID).transform((s) => s.toLowerCase())),
  /**
   * nova `[libvirt] hw_machine_type`: `ARCH=MACHINE` pairs. As nova's get_default_machine_type, the first pair for an
   * arch wins and a pair without `=MACHINE` is skipped (nova logs a warning and ignores it).
   */
  machineTypes: fromSchema('a comma-separated list of ARCH=MACHINE_TYPE pairs', list.transform((items) => {
    const machines: Record<string, string> = {};
    for (const item of items) {
      const at = item.indexOf('=');
      const arch = at < 0 ? '' : item.slice(0, at);
      const machine = at < 0 ? '' : item.slice(at + 1);
      if (machine !== '' && !(arch in machines)) machines[arch] = machine;
    }
    return machines;
  })),
  /**
   * `--source-ceph-conf STORE=PATH`: one pair per flag, or several comma-separated (env, clouds.yaml), or a clouds.yaml
   * map `{site-a: /etc/ceph/a.conf}`. A store named twice: the last wins.
   */
  storeConfPairs: fromSchema(`STORE=PATH pairs (a Glance store id, ${STORE_NAME_RULE}, and a ceph.conf path)`, z.union([
    list.pipe(z.array(z.string().regex(/^[A-Za-z0-9_.-]+=.+$/)).min(1))
      .transform((items) => Object.fromEntries(items.map((item) => [item.slice(0, item.indexOf('=')), item.slice(item.indexOf('=') + 1)]))),
    z.record(storeNameSchema(), z.string().min(1)),
  ])),
  /** Glance joins store ids with commas in image fields, so a store id never contains one. */
  storeName: fromSchema(`a Glance store id (${STORE_NAME_RULE})`, storeNameSchema()),
} as const;
