/**
 * One value as oslo.config reads it: continuation lines joined with '\n', one pair of matching quotes removed.
 * `line` is where the key was written (1-based).
 */
export interface OsloIniValue {
  readonly value: string;
  readonly line: number;
}

/** Sections by oslo group name (lower case, except `DEFAULT`); a repeated section or key: the last value wins. */
export type OsloIni = ReadonlyMap<string, ReadonlyMap<string, OsloIniValue>>;

export type OsloIniResult =
  | { readonly ok: true; readonly sections: OsloIni }
  | { readonly ok: false; readonly line: number; readonly reason: string };

/**
 * Parse a file the way oslo.config's iniparser does (nova.conf, glance-api.conf, …), not the way generic INI
 * parsers do: `#` and `;` start a comment only at the start of a line, so a value keeps any `#` or `;` in it
 * (`rbd_secret_uuid`, paths, passwords); a line starting with a space or tab continues the previous value; a blank
 * line ends it; `key: value` works like `key = value` (whichever separator comes first); `[Libvirt]` is `[libvirt]`.
 * Pure; never puts a line's text in its error (it may hold a password).
 */
export function parseOsloIni(text: string): OsloIniResult {
  const sections = new Map<string, Map<string, OsloIniValue>>();
  let section: Map<string, OsloIniValue> | undefined;
  let pending: { key: string; parts: string[]; line: number } | undefined;

  const flush = (): void => {
    if (pending === undefined || section === undefined) return;
    section.set(pending.key, { value: pending.parts.join('\n'), line: pending.line });
    pending = undefined;
  };

  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index += 1) {
    const lineNo = index + 1;
    const line = (lines[index] ?? '').trimEnd();
    if (line === '') {
      flush();
      continue;
    }
    if (line.startsWith(' ') || line.startsWith('\t')) {
      if (pending === undefined) return { ok: false, line: lineNo, reason: 'a continuation line (it starts with a space or tab) follows no option' };
      pending.parts.push(line.trimStart());
      continue;
    }
    flush();
    if (line.startsWith('[')) {
      if (!line.endsWith(']')) return { ok: false, line: lineNo, reason: "a section header does not end with ']'" };
      const name = line.slice(1, -1);
      if (name === '') return { ok: false, line: lineNo, reason: 'a section header has no name' };
      const group = name === 'DEFAULT' ? name : name.toLowerCase();
      section = sections.get(group) ?? new Map<string, OsloIniValue>();
      sections.set(group, section);
      continue;
    }
    if (line.startsWith('#') || line.startsWith(';')) continue;
    const split = splitKeyValue(line);
    if (split === undefined) return { ok: false, line: lineNo, reason: "a line is neither '[section]', 'key = value' nor a comment" };
    if (split.key === '') return { ok: false, line: lineNo, reason: 'an option has an empty name' };
    if (section === undefined) return { ok: false, line: lineNo, reason: 'an option comes before any [section]' };
    pending = { key: split.key, parts: [unquote(split.value)], line: lineNo };
  }
  flush();
  return { ok: true, sections };
}

function splitKeyValue(line: string): { key: string; value: string } | undefined {
  const colon = line.indexOf(':');
  const equal = line.indexOf('=');
  if (colon < 0 && equal < 0) return undefined;
  const at = colon < 0 || (equal >= 0 && equal < colon) ? equal : colon;
  return { key: line.slice(0, at).trim(), value: line.slice(at + 1).trim() };
}

/** oslo strips one pair of matching quotes around the first line's value, before any continuation lines. */
function unquote(value: string): string {
  const first = value[0];
  if ((first === '"' || first === "'") && value.endsWith(first)) return value.slice(1, -1);
  return value;
}
