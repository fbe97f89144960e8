import { FerryError } from '../errors/ferry-error.js';

/** One `CLASS:AMOUNT` of a resources parameter, in the order given. */
export interface ResourceAmount {
  readonly resourceClass: string;
  readonly amount: number;
}

const PAIR = /^([A-Z0-9_]+):([1-9]\d*)$/;

/**
 * `VCPU:1,MEMORY_MB:512,DISK_GB:1` → the amounts, checked the way Placement reads the unsuffixed `resources`
 * parameter: upper-case classes, positive integer amounts, each class once. Checked before any request, so a typo
 * costs no round trip. `origin` names where the text came from in the message (`--resources`).
 */
export function parseResources(text: string, origin = 'resources'): readonly ResourceAmount[] {
  const pieces = text.split(',');
  const amounts: ResourceAmount[] = [];
  for (const piece of pieces) {
    const match = PAIR.exec(piece);
    if (match?.[1] === undefined || match[2] === undefined) {
      throw new FerryError('FERRY_INVALID_OPTION',
        `${origin} must be like VCPU:1,MEMORY_MB:512 (upper-case classes, positive whole amounts, no spaces), got '${text}'`,
        'Give the flavor\'s resources as CLASS:AMOUNT pairs separated by commas: VCPU = vcpus, MEMORY_MB = ram, DISK_GB = disk.',
        { option: origin, value: text });
    }
    const amount = Number(match[2]);
    if (!Number.isSafeInteger(amount)) {
      throw new FerryError('FERRY_INVALID_OPTION', `${origin}: ${match[1]}:${match[2]} is not a usable amount`,
        'Give a whole number Placement can store.', { option: origin, value: text });
    }
    if (amounts.some((known) => known.resourceClass === match[1])) {
      throw new FerryError('FERRY_INVALID_OPTION', `${origin} names ${match[1]} twice ('${text}')`,
        'Give each resource class once, with the total amount.', { option: origin, value: text });
    }
    amounts.push(Object.freeze({ resourceClass: match[1], amount }));
  }
  return Object.freeze(amounts);
}
