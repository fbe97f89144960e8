import { Document, Scalar, visit } from 'yaml';
import { escapeControlsInJson, holdsRawControls } from '../../logging/terminal-controls.js';

// JSON and YAML for programs, with nothing in them a terminal acts on, and nothing changed once they are parsed: the
// controls JSON.stringify and the yaml package leave raw in strings (DEL, C1 such as U+009B, bidi overrides, line
// separators: logging/terminal-controls.ts) are written as `\uXXXX` escapes. C0 controls they escape themselves.

/** `JSON.stringify(data, null, 2)`, with those controls escaped. */
export function jsonText(data: unknown): string {
  return escapeControlsInJson(JSON.stringify(data, null, 2));
}

/** YAML as the yaml package writes it; a string holding those controls goes in double quotes, where they are escaped. */
export function yamlText(data: unknown): string {
  const document = new Document(data);
  let quoted = false;
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && holdsRawControls(node.value)) {
        node.type = Scalar.QUOTE_DOUBLE;
        quoted = true;
      }
    },
  });
  const text = document.toString().trimEnd();
  return quoted ? escapeControlsInJson(text) : text;
}
