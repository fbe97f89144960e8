import { isAlias, isMap, isScalar, isSeq, parseDocument, type Document } from 'yaml';

/** A YAML tree whose scalars are kept as written (strings); `null`, `~` and empty values are dropped. */
export type YamlTree = string | readonly YamlTree[] | { readonly [key: string]: YamlTree };

export type CloudsYamlResult =
  | { readonly ok: true; readonly tree: YamlTree | undefined }
  | { readonly ok: false; readonly line: number; readonly column: number; readonly reason: string };

/**
 * Parse clouds.yaml / secure.yaml. Scalars stay text: a project id `0123` stays `'0123'` (YAML would make it 123) and
 * `verify: false` becomes `'false'`, which ferry's own types then read. Duplicate keys are an error. The parser's
 * own message quotes the offending line (it may hold a password), so only its position and code are reported.
 */
export function parseCloudsYaml(text: string): CloudsYamlResult {
  const doc = parseDocument(text, { uniqueKeys: true, merge: true });
  const error = doc.errors[0];
  if (error !== undefined) {
    const position = error.linePos?.[0];
    return { ok: false, line: position?.line ?? 0, column: position?.col ?? 0, reason: describeYamlError(error.code) };
  }
  return { ok: true, tree: toTree(doc.contents, doc) };
}

function toTree(node: unknown, doc: Document): YamlTree | undefined {
  if (isAlias(node)) return toTree(node.resolve(doc), doc);
  if (isScalar(node)) {
    if (node.value === null || node.value === undefined) return undefined;
    if (typeof node.value === 'string') return node.value;
    const value: unknown = node.value;
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return node.source ?? String(value);
    return node.source ?? '';
  }
  if (isSeq(node)) {
    return node.items.map((item) => toTree(item, doc)).filter((item): item is YamlTree => item !== undefined);
  }
  if (isMap(node)) {
    const own: Record<string, YamlTree> = {};
    const merged: Record<string, YamlTree> = {};
    for (const pair of node.items) {
      const keyValue: unknown = isScalar(pair.key) ? pair.key.value : pair.key;
      const value = toTree(pair.value, doc);
      if (typeof keyValue === 'symbol' || keyValue === '<<') {
        // YAML merge keys: the mapping's own keys win over merged ones.
        for (const source of Array.isArray(value) ? value : [value]) {
          if (typeof source === 'object') Object.assign(merged, source);
        }
      } else if (value !== undefined) {
        own[String(keyValue)] = value;
      }
    }
    return { ...merged, ...own };
  }
  return undefined;
}

function describeYamlError(code: string): string {
  switch (code) {
    case 'DUPLICATE_KEY':
      return 'a key appears twice in one mapping';
    case 'BAD_INDENT':
    case 'MISSING_CHAR':
    case 'BLOCK_AS_IMPLICIT_KEY':
      return `the YAML is malformed (${code}: check the indentation around this line)`;
    default:
      return `the YAML is malformed (${code})`;
  }
}
