import { z } from 'zod';
import { validateResponse } from '../openstack/validate-response.js';

/** `GET /v2/info/import`: the import methods this Glance accepts (copy-image must be among them). */
export interface GlanceImportInfo {
  readonly methods: readonly string[];
}

const importInfoWire = z.looseObject({
  'import-methods': z.looseObject({ value: z.array(z.string()) }),
});

export const IMPORT_INFO_ENDPOINT = 'GET /v2/info/import';

export function parseImportInfo(raw: unknown, endpoint: string = IMPORT_INFO_ENDPOINT): GlanceImportInfo {
  const wire = validateResponse(importInfoWire, raw, endpoint);
  return Object.freeze({ methods: Object.freeze([...wire['import-methods'].value]) });
}
