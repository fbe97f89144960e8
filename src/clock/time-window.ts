import { FerryError } from '../errors/ferry-error.js';

/** --window HH:MM-HH:MM (UTC): the minutes of the day in which new copies may start; `end` before `start` wraps midnight. */
export interface TimeWindow { readonly startMinute: number; readonly endMinute: number; readonly text: string }

const DAY_MS = 86_400_000;

export function parseTimeWindow(text: string, origin = '--window'): TimeWindow {
  const match = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  const startMinute = match ? Number(match[1]) * 60 + Number(match[2]) : Number.NaN;
  const endMinute = match ? Number(match[3]) * 60 + Number(match[4]) : Number.NaN;
  if (!match || startMinute === endMinute) {
    throw new FerryError('FERRY_INVALID_OPTION', `${origin} must be HH:MM-HH:MM in UTC with two different times, got '${text}'`,
      `Pass e.g. ${origin} 22:00-06:00 (new copies start from 22:00 to 06:00 UTC; a copy running at 06:00 finishes).`, { option: 'window' });
  }
  return { startMinute, endMinute, text: text.trim() };
}

/** How long from `wallMs` (ms since the epoch) until the window is open: 0 inside it. */
export function windowWaitMs(window: TimeWindow, wallMs: number): number {
  const intoDay = ((wallMs % DAY_MS) + DAY_MS) % DAY_MS;
  const start = window.startMinute * 60_000;
  const end = window.endMinute * 60_000;
  const open = start < end ? intoDay >= start && intoDay < end : intoDay >= start || intoDay < end;
  if (open) return 0;
  return (start - intoDay + DAY_MS) % DAY_MS;
}
