import { NOVA_CONF_OPTIONS } from './nova-conf-options.js';
import { parseOsloIni } from './parse-oslo-ini.js';
import type { NovaConfFile } from './read-nova-conf.js';

export type NovaConfSubset =
  | { readonly ok: true; readonly text: string; readonly options: number }
  | { readonly ok: false; readonly path: string; readonly line: number; readonly reason: string };

/** `section\0option` of every nova.conf option ferry reads: nothing else is ever copied. */
const WANTED = new Set(Object.values(NOVA_CONF_OPTIONS).map((spec) => `${spec.section}\u0000${spec.option}`));

/**
 * The nova.conf options ferry reads (NOVA_CONF_OPTIONS), copied out of nova's files line for line, and nothing else:
 * nova.conf also holds nova's database, RabbitMQ and service passwords, which the agent must never hold. The agent's
 * unit runs this as root before each start and reload (bin/ferry-nova-conf-subset), and the agent reads the result.
 *
 * The lines are copied verbatim (the key line and its continuation lines), each under its section and after a comment
 * naming where it came from, so parseOsloIni reads the same value from the subset as from nova's file; the files keep
 * their order, so a later file still wins per option, as with `--nova-conf A --nova-conf B`. A file oslo.config could
 * not parse is refused (its path and line, never the line's text: it may hold a password). Pure.
 */
export function novaConfSubset(files: readonly NovaConfFile[]): NovaConfSubset {
  const out: string[] = ['# The nova.conf options ferry reads, copied from ' + files.map((f) => f.path).join(', ')
    + ' by ferry-nova-conf-subset (docs/agent.md). Nothing else of nova.conf is here.'];
  let options = 0;
  let section: string | undefined;
  for (const file of files) {
    const parsed = parseOsloIni(file.text);
    if (!parsed.ok) return { ok: false, path: file.path, line: parsed.line, reason: parsed.reason };
    const lines = file.text.split(/\r?\n/);
    for (const [name, found] of parsed.sections) {
      for (const [option, value] of found) {
        if (!WANTED.has(`${name}\u0000${option}`)) continue;
        if (name !== section) out.push('', `[${name}]`);
        section = name;
        const continuations = value.value.split('\n').length - 1;
        out.push(`# ${file.path} line ${value.line}`,
          ...lines.slice(value.line - 1, value.line + continuations).map((line) => line.trimEnd()));
        options += 1;
      }
    }
  }
  return { ok: true, text: `${out.join('\n')}\n`, options };
}
