import { z } from 'zod';
import { parseImage, type GlanceImage } from './image.js';
import { BASE_IMAGE_KEYS, commaListWire, imageLocationWire } from './image-schema.js';

// An image document an operator saved or wrote (`--image FILE.json`), as opposed to an answer from Glance: three
// shapes are accepted, a bad one is the operator's input error (every problem listed), never a service error.

/** What the caller reads from the document, beyond what is always optional (`ferry backend` needs disk_format). */
export type ImageDocumentField = 'disk_format';

export type ImageDocumentResult =
  | { readonly ok: true; readonly image: GlanceImage; readonly shape: ImageDocumentShape }
  | { readonly ok: false; readonly problems: readonly string[] };

/** `glance`: a `GET /v2/images/{id}` body; `openstack`: `openstack image show -f json`; `partial`: hand-written. */
export type ImageDocumentShape = 'glance' | 'openstack' | 'partial';

const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

/** The base fields a document may hold, each with its type; every one is optional in a document. */
const BASE_FIELDS: Readonly<Record<string, { readonly expected: string; readonly schema: z.ZodType }>> = {
  id: { expected: 'a string', schema: z.string() },
  name: { expected: 'a string or null', schema: orNull(z.string()) },
  status: { expected: 'a string', schema: z.string() },
  visibility: { expected: 'a string', schema: z.string() },
  disk_format: { expected: 'a string or null', schema: orNull(z.string()) },
  container_format: { expected: 'a string or null', schema: orNull(z.string()) },
  owner: { expected: 'a string or null', schema: orNull(z.string()) },
  size: { expected: 'a number or null', schema: orNull(z.number()) },
  virtual_size: { expected: 'a number or null', schema: orNull(z.number()) },
  min_ram: { expected: 'a number', schema: z.number() },
  min_disk: { expected: 'a number', schema: z.number() },
  protected: { expected: 'a boolean', schema: z.boolean() },
  os_hidden: { expected: 'a boolean', schema: z.boolean() },
  created_at: { expected: 'a string', schema: z.string() },
  updated_at: { expected: 'a string', schema: z.string() },
  tags: { expected: 'a list of strings', schema: z.array(z.string()) },
  locations: { expected: 'a list of {"url": …, "metadata": {…}}', schema: z.array(imageLocationWire) },
  direct_url: { expected: 'a string', schema: z.string() },
  stores: { expected: 'a comma-separated string or a list of strings', schema: commaListWire },
  os_glance_importing_to_stores: { expected: 'a comma-separated string or a list of strings', schema: commaListWire },
  os_glance_failed_import: { expected: 'a comma-separated string or a list of strings', schema: commaListWire },
  os_glance_import_task: { expected: 'a string or null', schema: orNull(z.string()) },
};

/**
 * Glance's disk formats (`[image_format] disk_formats` default). Checked only in documents that lack the fields Glance
 * always sends (hand-written ones), where a typo (`qcow`) would silently drop the image-type trait; a saved answer may
 * come from a Glance configured with more formats.
 */
export const GLANCE_DISK_FORMATS = ['ami', 'ari', 'aki', 'vhd', 'vhdx', 'vmdk', 'raw', 'qcow2', 'vdi', 'iso', 'ploop'] as const;

/**
 * Read an image document from the text of a file: what `GET /v2/images/{id}` returns (custom properties as
 * top-level keys), what `openstack image show -f json` prints (custom properties nested under `properties`), or a
 * hand-written partial document with only the fields the command reads (`{"disk_format": "qcow2", "hw_disk_bus":
 * "scsi"}`). Every problem is collected, not just the first. Fields a partial document leaves out are filled so the
 * image model holds: `id` = `label`, `status`/`visibility` = `unknown`, timestamps empty. Pure.
 */
export function parseImageDocument(text: string, label: string, needs: readonly ImageDocumentField[] = []): ImageDocumentResult {
  if (text.trim() === '') return { ok: false, problems: ['the file is empty'] };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`it is not valid JSON (${(error as Error).message})`] };
  }
  if (Array.isArray(body)) {
    return { ok: false, problems: [`it holds a list of ${body.length} item(s), not one image (save one image with \`openstack image show -f json ID\`)`] };
  }
  if (typeof body !== 'object' || body === null) return { ok: false, problems: [`it holds ${kindOf(body)}, not an image object`] };

  const problems: string[] = [];
  const { flat, nested } = flatten(body as Record<string, unknown>, problems);
  for (const [key, value] of Object.entries(flat)) {
    const field = BASE_FIELDS[key];
    if (field !== undefined) {
      if (!field.schema.safeParse(value).success) problems.push(`${key}: expected ${field.expected}, got ${show(value)}`);
    } else if (!BASE_IMAGE_KEYS.has(key) && typeof value !== 'string') {
      // Glance stores every additional property as a string; nova and ferry's rules read only strings.
      problems.push(`${nested.has(key) ? 'properties.' : ''}${key}: expected a string (Glance keeps every image property as one), got ${show(value)}`);
    }
  }
  const saved = REQUIRED_BY_GLANCE.every((key) => key in flat);
  const shape: ImageDocumentShape = nested.size > 0 || 'properties' in body ? 'openstack' : saved ? 'glance' : 'partial';
  const diskFormat = flat['disk_format'];
  if (!saved && typeof diskFormat === 'string' && !(GLANCE_DISK_FORMATS as readonly string[]).includes(diskFormat)) {
    problems.push(`disk_format: expected one of ${GLANCE_DISK_FORMATS.join(', ')}, got ${show(diskFormat)}`);
  }
  for (const need of needs) {
    if (flat[need] === undefined || flat[need] === null) problems.push(`${need} is missing, and this command needs it`);
  }
  if (problems.length > 0) return { ok: false, problems };
  const filled = { id: label, status: 'unknown', visibility: 'unknown', created_at: '', updated_at: '', ...flat };
  return { ok: true, image: parseImage(filled, `--image ${label}`), shape };
}

/** The fields Glance always returns: a document with all of them is a Glance answer. */
const REQUIRED_BY_GLANCE = ['id', 'status', 'visibility', 'created_at', 'updated_at'] as const;

/**
 * The openstack CLI nests everything outside its own columns under `properties`; lift it to the top level, as Glance
 * has it. A key both at the top and under `properties` with different values is a problem (which one is meant?).
 */
function flatten(body: Record<string, unknown>, problems: string[]): { flat: Record<string, unknown>; nested: Set<string> } {
  const { properties, ...top } = body;
  const nested = new Set<string>();
  if (properties === undefined) return { flat: top, nested };
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
    problems.push(`properties: expected an object of image properties (as \`openstack image show -f json\` prints it), got ${show(properties)}`);
    return { flat: top, nested };
  }
  const flat: Record<string, unknown> = { ...top };
  for (const [key, value] of Object.entries(properties as Record<string, unknown>)) {
    if (key in top && JSON.stringify(top[key]) !== JSON.stringify(value)) {
      problems.push(`${key} is given twice with different values, at the top level (${show(top[key])}) and under properties (${show(value)})`);
      continue;
    }
    flat[key] = value;
    nested.add(key);
  }
  return { flat, nested };
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 60)}…` : json;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return `a ${typeof value} (${show(value)})`;
}
