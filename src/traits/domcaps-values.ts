import type { DomainCapabilities } from './parse-domain-capabilities.js';

/**
 * The union of one list over several domain capabilities (pc + q35, one per arch), like nova's union over every
 * queried answer: each value once, in first-seen order, with the sources that list it.
 */
export function domcapsValues(
  domcaps: readonly DomainCapabilities[],
  pick: (caps: DomainCapabilities) => readonly string[],
): ReadonlyMap<string, readonly string[]> {
  const values = new Map<string, string[]>();
  for (const caps of domcaps) {
    for (const value of pick(caps)) {
      const sources = values.get(value);
      if (sources === undefined) values.set(value, [caps.source]);
      else if (!sources.includes(caps.source)) sources.push(caps.source);
    }
  }
  return values;
}

export function sourcesOf(domcaps: readonly DomainCapabilities[]): string {
  return domcaps.map((caps) => caps.source).join(', ');
}
