import { z } from 'zod';
import { validateResponse } from '../openstack/validate-response.js';

/** One store of `GET /v2/info/stores` or `GET /v2/info/stores/detail`. */
export interface GlanceStoreInfo {
  readonly id: string;
  readonly description: string | undefined;
  /** Glance sends `"default": "true"` (a string) on exactly one store. */
  readonly isDefault: boolean;
  /** `"read-only": "true"` (http stores): not a copy target. */
  readonly readOnly: boolean;
  /** `rbd`, `file`, … — only in /detail (admin). */
  readonly type: string | undefined;
  /** Only in /detail from Glance 27.0.0; orders locations and picks direct_url. */
  readonly weight: number | undefined;
  /** rbd stores in /detail: `properties.pool`. */
  readonly pool: string | undefined;
  /** rbd stores in /detail from Glance 30.0.0: `properties.fsid`, the store's Ceph cluster. */
  readonly fsid: string | undefined;
  readonly properties: Readonly<Record<string, unknown>>;
}

export interface GlanceStoresInfo {
  readonly stores: readonly GlanceStoreInfo[];
  readonly defaultStore: string | undefined;
}

const stringFlag = z.union([z.string(), z.boolean(), z.null()]).optional();

const storeWire = z.looseObject({
  id: z.string(),
  description: z.union([z.string(), z.null()]).optional(),
  default: stringFlag,
  'read-only': stringFlag,
  type: z.union([z.string(), z.null()]).optional(),
  weight: z.union([z.number(), z.string(), z.null()]).optional(),
  properties: z.union([z.record(z.string(), z.unknown()), z.null()]).optional(),
});

const storesWire = z.looseObject({ stores: z.array(storeWire) });

export const STORES_INFO_ENDPOINT = 'GET /v2/info/stores';

/** Parses `/v2/info/stores` and `/v2/info/stores/detail` (pass the detail endpoint for messages). */
export function parseStoresInfo(raw: unknown, endpoint: string = STORES_INFO_ENDPOINT): GlanceStoresInfo {
  const wire = validateResponse(storesWire, raw, endpoint);
  const stores = wire.stores.map(storeFromWire);
  return Object.freeze({
    stores: Object.freeze(stores),
    defaultStore: stores.find((store) => store.isDefault)?.id,
  });
}

function storeFromWire(wire: z.output<typeof storeWire>): GlanceStoreInfo {
  const properties = wire.properties ?? {};
  const pool = properties['pool'];
  const fsid = properties['fsid'];
  const weight = wire.weight === null || wire.weight === undefined || wire.weight === '' ? undefined : Number(wire.weight);
  return Object.freeze({
    id: wire.id,
    description: wire.description ?? undefined,
    isDefault: isTrue(wire.default),
    readOnly: isTrue(wire['read-only']),
    type: wire.type ?? undefined,
    weight: weight !== undefined && Number.isFinite(weight) ? weight : undefined,
    pool: typeof pool === 'string' ? pool : undefined,
    fsid: typeof fsid === 'string' ? fsid : undefined,
    properties: Object.freeze({ ...properties }),
  });
}

function isTrue(flag: string | boolean | null | undefined): boolean {
  return flag === true || (typeof flag === 'string' && flag.toLowerCase() === 'true');
}
