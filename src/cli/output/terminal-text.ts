import { terminalControls } from '../../logging/terminal-controls.js';
import type { ProgressSink } from '../command-spec.js';

// What the CLI writes for people passes through here: text from the services (image names, task and error messages,
// store descriptions, properties) is written by others, and a terminal acts on its controls (logging/terminal-controls
// lists them). They are shown as escapes, `\x1b]0;…\x07`, `\r`, `\u202e`, rather than dropped or replaced by U+FFFD:
// the operator sees that something is there and what, and can find the image by its real name. A backslash itself is
// left alone: nothing a terminal acts on can be spelled with one.

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every terminal control shown as an escape; `keepLineBreaks` keeps `\n` (a text of several lines). */
export function terminalText(text: string, keepLineBreaks = false): string {
  return text.replace(terminalControls(), (char) => {
    if (char === '\n' && keepLineBreaks) return char;
    const code = char.charCodeAt(0);
    return NAMED[char] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}

/**
 * A report with terminalText applied to every string in it, keys included, before a renderer lays it out: a line feed
 * in an image name is shown as `\n` instead of starting a line that looks like ferry's own. Plain objects, arrays,
 * maps and sets are copied; other values (numbers, class instances) are kept as they are: reports are plain data.
 */
export function terminalSafe<T>(value: T): T {
  return walk(value) as T;
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return terminalText(value);
  if (Array.isArray(value)) return value.map(walk);
  if (value instanceof Map) return new Map([...value].map(([key, item]) => [walk(key), walk(item)]));
  if (value instanceof Set) return new Set([...value].map(walk));
  if (typeof value === 'object' && value !== null && isPlain(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [terminalText(key), walk(item)]));
  }
  return value;
}

function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A live progress area whose lines are shown through terminalText (its frame keeps its line breaks). */
export function terminalSink(sink: ProgressSink): ProgressSink {
  return {
    update: (text) => sink.update(terminalText(text, true)),
    log: (text) => sink.log(terminalText(text, true)),
    clear: () => sink.clear(),
  };
}
