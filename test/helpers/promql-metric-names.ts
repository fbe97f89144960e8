/** PromQL keywords and aggregation modifiers: identifiers that are never metric names. */
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset',
  'inf', 'nan', 'atan2']);

/**
 * The metric names a PromQL expression selects (Grafana's `$var` / `${var}` / `[$__rate_interval]` allowed): what
 * is left once strings, label matchers, ranges, grouping label lists, function names and keywords are taken out.
 * A `{__name__="…"}` selector is read as the name it matches exactly.
 */
export function promqlMetricNames(expr: string): string[] {
  const names = new Set<string>();
  for (const match of expr.matchAll(/__name__\s*=\s*"([^"]+)"/g)) names.add(match[1] ?? '');
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  for (const match of stripped.matchAll(/(?<![\w.:])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const [, name = '', call] = match;
    if (call === undefined && !KEYWORDS.has(name.toLowerCase())) names.add(name);
  }
  return [...names].sort();
}

/** Grafana's `label_values(METRIC_SELECTOR, label)` (the metric names it reads), or the plain PromQL of a query variable. */
export function grafanaVariableMetricNames(query: string): string[] {
  const labelValues = /^\s*label_values\((?:(.+),)?\s*\w+\s*\)\s*$/.exec(query);
  if (labelValues !== null) return labelValues[1] === undefined ? [] : promqlMetricNames(labelValues[1]);
  const queryResult = /^\s*query_result\((.*)\)\s*$/.exec(query);
  return promqlMetricNames(queryResult?.[1] ?? query);
}
