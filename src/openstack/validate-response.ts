import type { z } from 'zod';
import { FerryError } from '../errors/ferry-error.js';

// Turns zod's verdict on a service's answer into one FERRY_BAD_RESPONSE that names the endpoint, the field and what
// was expected, e.g. "GET /v2/images/{id}: field 'status': expected a string, got number". Every client validates the
// fields it relies on through this, so an unexpected answer is a clear error, never a crash deeper in the code.

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

export interface WireIssue {
  readonly path: string;
  readonly expected: string;
  readonly got: string;
}

/**
 * Parses `raw` with `schema`, or throws FERRY_BAD_RESPONSE naming `endpoint` and the first bad field (all of them in
 * `details.issues`). `pathPrefix` places the body inside a larger one (`images[3]`) so the path reads from the top.
 */
export function validateResponse<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  endpoint: string,
  pathPrefix: readonly PathKey[] = [],
): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  if (typeof raw === 'string') throw notJson(raw, endpoint);
  const issues = result.error.issues.map((issue) => describeIssue(issue, raw, pathPrefix));
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem(s))` : '';
  const where = first === undefined || first.path === '' ? 'the body' : `field '${first.path}'`;
  throw new FerryError(
    'FERRY_BAD_RESPONSE',
    first === undefined
      ? `${endpoint}: the body does not have the expected shape`
      : `${endpoint}: ${where}: expected ${first.expected}, got ${first.got}${more}`,
    'Check that the endpoint is the right service and API version (catalog entry or endpoint override); if it is, '
      + 'run with --debug and report it with the service version.',
    { endpoint, field: first?.path ?? '', issues },
  );
}

/**
 * The transport hands back text when an answer is not JSON: an HTML error page from a proxy or load balancer, or a
 * body cut off or garbled on the way. Name what arrived instead of "expected an object".
 */
function notJson(text: string, endpoint: string): FerryError {
  const trimmed = text.trim();
  const html = /^<(!doctype|html|head|body|\?xml)/i.test(trimmed) || /<\/(html|body|title)>/i.test(trimmed);
  const title = html ? /<title>([^<]{1,120})<\/title>/i.exec(trimmed)?.[1]?.trim() : undefined;
  const what = html ? `an HTML page${title ? ` ("${title}")` : ''}`
    : /^[[{]/.test(trimmed) ? 'JSON that does not parse (cut off or malformed)' : 'text that is not JSON';
  const sample = trimmed.slice(0, 80).replace(/\s+/g, ' ');
  return new FerryError('FERRY_BAD_RESPONSE', `${endpoint}: expected a JSON document, got ${what}: '${sample}${trimmed.length > 80 ? '…' : ''}'`,
    html ? 'Something other than the service answered (a proxy, a load balancer, or an endpoint URL that points at a web page): '
      + 'check the endpoint (catalog entry or --*-endpoint) and what sits in front of the service.'
      : 'The answer was cut off or garbled on the way: retry; if it repeats, check the service and anything between ferry and it.',
    { endpoint, field: '', received: html ? 'html' : 'text', sample });
}

function describeIssue(issue: Issue, raw: unknown, prefix: readonly PathKey[]): WireIssue {
  const path = [...issue.path];
  if (issue.code === 'invalid_union') {
    // A branch whose problems are all nested matched the outer type (an array of the wrong items): its inner
    // problem is the useful one, not "expected a string or an array".
    const inner = nestedIssue(issue);
    if (inner !== undefined) return describeIssue({ ...inner, path: [...path, ...inner.path] }, raw, prefix);
    const expected = joinAlternatives([...new Set(alternatives(issue))]);
    return { path: formatPath([...prefix, ...path]), expected, got: kindOf(valueAt(raw, path)) };
  }
  const value = valueAt(raw, path);
  const got = issue.code === 'invalid_value' ? (JSON.stringify(value)?.slice(0, 80) ?? 'nothing') : kindOf(value);
  return { path: formatPath([...prefix, ...path]), expected: expectation(issue), got };
}

function nestedIssue(issue: Issue): Issue | undefined {
  if (issue.code !== 'invalid_union') return undefined;
  for (const branch of issue.errors) {
    const [first] = branch;
    if (first === undefined) continue;
    if (branch.every((inner) => inner.path.length > 0)) return first;
    const deeper = branch.length === 1 ? nestedIssue(first) : undefined;
    if (deeper !== undefined) return deeper;
  }
  return undefined;
}

function alternatives(issue: Issue): string[] {
  if (issue.code !== 'invalid_union') return [expectation(issue)];
  return issue.errors.flatMap((branch) => branch.flatMap(alternatives));
}

function expectation(issue: Issue): string {
  if (issue.code === 'invalid_type') return ARTICLES[issue.expected] ?? issue.expected;
  if (issue.code === 'invalid_value') return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  return issue.message;
}

const ARTICLES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  null: 'null',
};

function joinAlternatives(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? 'something else';
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1) ?? ''}`;
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function valueAt(raw: unknown, path: readonly PathKey[]): unknown {
  let current: unknown = raw;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function formatPath(path: readonly PathKey[]): string {
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`)).join('');
}
