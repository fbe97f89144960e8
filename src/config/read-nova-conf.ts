import type { ConfigIssues } from './config-issues.js';
import { novaConfLabel, novaSource, type ConfigSource, type Sourced } from './config-source.js';
import { NOVA_CONF_OPTIONS, type NovaOptionId, type NovaOptionValue } from './nova-conf-options.js';
import { parseOsloIni } from './parse-oslo-ini.js';

/** The nova.conf options ferry knows that the files set, typed (nova's units: ms already, see NOVA_CONF_OPTIONS). */
export type NovaConfValues = { readonly [K in NovaOptionId]?: Sourced<NovaOptionValue<K>> };

/** One nova.conf-style file: its path (for messages) and its text. */
export interface NovaConfFile {
  readonly path: string;
  readonly text: string;
}

/** Read one nova.conf: readNovaConfFiles with a single file. */
export function readNovaConf(text: string, path: string, issues: ConfigIssues): NovaConfValues {
  return readNovaConfFiles([{ path, text }], issues);
}

/**
 * Read the options of NOVA_CONF_OPTIONS from nova.conf files in oslo.config's order: nova-compute runs with
 * `--config-file nova.conf --config-file nova-compute.conf`, and a later file wins per option (not per file or per
 * section). Only the value that wins is validated, as by nova, and it is validated even when a flag overrides it: a
 * value nova itself would reject is worth knowing about. Problems go to `issues`, each naming the file, section and
 * option (`nova.conf (/etc/nova/nova.conf) [libvirt] images_rbd_pool: …`). Options whose nova default differs from
 * ferry's (`novaDefaultApplies`) get nova's default when no file sets them. Unknown options and sections are
 * ignored: nova.conf has hundreds.
 */
export function readNovaConfFiles(files: readonly NovaConfFile[], issues: ConfigIssues): NovaConfValues {
  const merged = new Map<string, { readonly value: string; readonly path: string }>();
  for (const file of files) {
    const parsed = parseOsloIni(file.text);
    if (!parsed.ok) {
      const label = novaConfLabel(file.path);
      issues.add({ kind: 'file', label }, `${label} line ${parsed.line}: ${parsed.reason}`);
      continue;
    }
    for (const [section, options] of parsed.sections) {
      for (const [option, found] of options) merged.set(`${section}\u0000${option}`, { value: found.value, path: file.path });
    }
  }
  const values: Partial<Record<NovaOptionId, Sourced<unknown>>> = {};
  for (const id of Object.keys(NOVA_CONF_OPTIONS) as NovaOptionId[]) {
    const spec = NOVA_CONF_OPTIONS[id];
    const found = merged.get(`${spec.section}\u0000${spec.option}`);
    const unset = found === undefined || (spec.emptyIsUnset === true && found.value.trim() === '');
    if (unset) {
      if (spec.novaDefaultApplies === true && files.length > 0) {
        const byDefault = spec.type.parse(spec.novaDefault);
        if (byDefault.ok) values[id] = { value: byDefault.value, source: novaDefaultSource(spec.section, spec.option, spec.novaDefault) };
      }
      continue;
    }
    const source = novaSource(found.path, spec.section, spec.option);
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

/** `nova's default [glance] valid_interfaces = internal,public (no nova.conf sets it)`. */
function novaDefaultSource(section: string, option: string, value: string): ConfigSource {
  return { kind: 'default', label: `nova's default [${section}] ${option} = ${value} (no nova.conf sets it)` };
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
