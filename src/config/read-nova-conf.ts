import type { ConfigIssues } from './config-issues.js';
import { novaConfLabel, novaSource, type Sourced } from './config-source.js';
import { NOVA_CONF_OPTIONS, type NovaOptionId, type NovaOptionValue } from './nova-conf-options.js';
import { parseOsloIni } from './parse-oslo-ini.js';

/** The nova.conf options ferry knows that the file sets, typed (nova's units: ms already, see NOVA_CONF_OPTIONS). */
export type NovaConfValues = { readonly [K in NovaOptionId]?: Sourced<NovaOptionValue<K>> };

/**
 * Read the options of NOVA_CONF_OPTIONS from the text of a nova.conf. Every one that is set is validated, even when
 * a flag overrides it: a value nova itself would reject is worth knowing about. Problems go to `issues`, each
 * naming the file, section and option (`nova.conf (/etc/nova/nova.conf) [libvirt] images_rbd_pool: …`).
 * Unknown options and sections are ignored: nova.conf has hundreds.
 */
export function readNovaConf(text: string, path: string, issues: ConfigIssues): NovaConfValues {
  const parsed = parseOsloIni(text);
  if (!parsed.ok) {
    const label = novaConfLabel(path);
    issues.add({ kind: 'file', label }, `${label} line ${parsed.line}: ${parsed.reason}`);
    return {};
  }
  const values: Partial<Record<NovaOptionId, Sourced<unknown>>> = {};
  for (const id of Object.keys(NOVA_CONF_OPTIONS) as NovaOptionId[]) {
    const spec = NOVA_CONF_OPTIONS[id];
    const found = parsed.sections.get(spec.section)?.get(spec.option);
    if (found === undefined) continue;
    const source = novaSource(path, spec.section, spec.option);
    if (spec.emptyIsUnset === true && found.value.trim() === '') continue;
    const substituted = unescapeDollars(found.value);
    if (substituted === undefined) {
      issues.add(source, `${source.label}: ferry does not expand oslo.config substitutions ($name or \${name}); `
        + 'write the value out (or use $$ for a literal $)');
      continue;
    }
    const result = spec.type.parse(substituted);
    if (!result.ok) {
      issues.invalidValue(source, spec.type.expected, found.value);
      continue;
    }
    values[id] = { value: result.value, source };
  }
  return values as NovaConfValues;
}

/**
 * oslo.config replaces `$name` / `${name}` with another option's value and `$$` with `$`. ferry reads only its own
 * options, so it cannot expand a reference: undefined when the value holds one.
 */
function unescapeDollars(value: string): string | undefined {
  let out = '';
  for (let i = 0; i < value.length; i += 1) {
    const c = value[i];
    if (c !== '$') {
      out += c;
      continue;
    }
    if (value[i + 1] === '$') {
      out += '$';
      i += 1;
      continue;
    }
    if (/^\{?[A-Za-z_]/.test(value.slice(i + 1))) return undefined;
    out += c;
  }
  return out;
}
