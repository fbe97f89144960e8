// Percent-encoding exactly as Python's urllib.parse does it, because the rbd:// URLs ferry reads are written by
// glance_store (quote) and judged by nova (unquote): matching them byte for byte is what "same location" means.

const ALWAYS_SAFE = /^[A-Za-z0-9_.~-]$/;
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/** Python `quote(value, safe='')`: only `A-Z a-z 0-9 _ . - ~` stay literal; everything else is `%XX` of its UTF-8. */
export function pythonQuote(value: string): string {
  let out = '';
  for (const char of value) {
    if (ALWAYS_SAFE.test(char)) {
      out += char;
      continue;
    }
    for (const byte of new TextEncoder().encode(char)) {
      out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

/**
 * Python `unquote(value)`: valid `%XX` runs are decoded as UTF-8 with U+FFFD for bytes that do not form a character;
 * a malformed `%` (`%zz`, `%4`, a lone `%`) stays as it is. Never throws, unlike decodeURIComponent.
 * Python decodes each ASCII stretch on its own, so a non-ASCII character splits a byte sequence; so does this.
 */
export function pythonUnquote(value: string): string {
  if (!value.includes('%')) return value;
  const decoder = new TextDecoder('utf-8');
  let out = '';
  let bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length > 0) out += decoder.decode(new Uint8Array(bytes));
    bytes = [];
  };
  for (let i = 0; i < value.length; ) {
    const code = value.charCodeAt(i);
    if (code === 0x25 && HEX_PAIR.test(value.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(value.slice(i + 1, i + 3), 16));
      i += 3;
    } else if (code < 0x80) {
      bytes.push(code);
      i += 1;
    } else {
      flush();
      const char = String.fromCodePoint(value.codePointAt(i) ?? code);
      out += char;
      i += char.length;
    }
  }
  flush();
  return out;
}
