/**
 * Characters a terminal acts on instead of showing, or that reorder what it shows. Strings from the services (image
 * names, task and error messages, store descriptions, properties) are written by others and may carry them:
 * - C0 controls and DEL (U+0000–U+001F, U+007F): ESC opens an escape sequence (`\x1b]0;…\x07` sets the window
 *   title, `\x1b[2J` clears the screen, OSC 8 makes a link), CR returns to the line's start to overwrite it;
 * - C1 controls (U+0080–U+009F): U+009B is CSI, the one-character `ESC [`, acted on by terminals that read C1 in UTF-8;
 * - bidirectional overrides, embeddings, isolates and marks (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069,
 *   "Trojan Source"): `evil\u202etxt.exe` shows as `evilexe.txt`;
 * - the line and paragraph separators U+2028–U+2029, which some terminals break lines on.
 * The CLI shows them as escapes (cli/output/terminal-text.ts); JSON texts and log lines escape them losslessly (below).
 */
const LEFT_RAW_BY_JSON = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';

/** Every such character, C0 included (global: for `replace`). */
export function terminalControls(): RegExp {
  return new RegExp(`[\\u0000-\\u001f${LEFT_RAW_BY_JSON}]`, 'g');
}

// JSON.stringify escapes C0 itself, and outside its strings a JSON text holds only layout (spaces, line feeds).
const RAW_ONE = new RegExp(`[${LEFT_RAW_BY_JSON}]`);
const RAW_ALL = new RegExp(`[${LEFT_RAW_BY_JSON}]`, 'g');

/** Whether a string holds one JSON.stringify leaves raw (DEL, C1, bidi, separators). */
export function holdsRawControls(text: string): boolean {
  return RAW_ONE.test(text);
}

/**
 * A JSON text with the controls JSON.stringify leaves raw written as `\uXXXX`: the same document once parsed, and
 * nothing a terminal acts on. For `--json`, `-f json` and every log line; also for a YAML text whose strings that
 * hold them are double-quoted (YAML's double quotes take the same escape).
 */
export function escapeControlsInJson(json: string): string {
  return json.replace(RAW_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
