/** Below this a column is not narrowed: a table that cannot fit even so is printed wider than the terminal. */
export const MIN_COLUMN_WIDTH = 3;
/** A column keeps its longest word whole up to this width; a longer word (a UUID, a path) may be broken. */
export const WHOLE_WORD_WIDTH = 16;

/** The frame of a table of `count` columns: `| ` before, ` | ` between, ` |` after. */
export function tableFrameWidth(count: number): number {
  return count === 0 ? 0 : 3 * count + 1;
}

/**
 * The width of each column so that the table fits `total` terminal cells, as cliff's --fit-width does, a little
 * kinder to words. `natural` is each column's widest cell, `longestWord` its widest word (both in terminal cells).
 * When the natural widths fit they are kept. Else each column first gets its longest word (up to WHOLE_WORD_WIDTH),
 * and the room left is poured into the columns still short of their natural width, evenly, so the narrow columns end
 * whole and the widest ones are the ones wrapped. When even the words do not fit, cliff's rule: a column keeps its
 * width when it is at most its fair share of the room, the others share the rest evenly (never below
 * MIN_COLUMN_WIDTH).
 */
export function fitColumnWidths(natural: readonly number[], total: number, longestWord: readonly number[] = []): readonly number[] {
  const room = total - tableFrameWidth(natural.length);
  if (sum(natural) <= room) return natural;
  const floors = natural.map((width, index) => Math.min(width, Math.max(MIN_COLUMN_WIDTH, Math.min(longestWord[index] ?? 0, WHOLE_WORD_WIDTH))));
  return sum(floors) <= room ? pour(floors, natural, room - sum(floors)) : fairShares(natural, room);
}

/** Raises the shortest columns first, one cell at a time, until the room is used or every column is natural. */
function pour(floors: readonly number[], natural: readonly number[], room: number): readonly number[] {
  const widths = [...floors];
  let left = room;
  while (left > 0) {
    const growing = widths.map((width, index) => ({ width, index })).filter(({ width, index }) => width < (natural[index] ?? 0));
    if (growing.length === 0) break;
    const lowest = Math.min(...growing.map(({ width }) => width));
    for (const { width, index } of growing) {
      if (width === lowest && left > 0) {
        widths[index] = width + 1;
        left -= 1;
      }
    }
  }
  return widths;
}

function fairShares(natural: readonly number[], total: number): readonly number[] {
  let room = total;
  const widths = [...natural];
  const narrowestFirst = natural.map((width, index) => ({ width, index })).sort((a, b) => a.width - b.width || a.index - b.index);
  let left = natural.length;
  for (const { width, index } of narrowestFirst) {
    const fair = Math.max(MIN_COLUMN_WIDTH, Math.floor(room / left));
    widths[index] = Math.min(width, fair);
    room -= widths[index];
    left -= 1;
  }
  return widths;
}

function sum(widths: readonly number[]): number {
  return widths.reduce((total, width) => total + width, 0);
}

/**
 * The table's width: the terminal's columns when stdout is one, else $COLUMNS (as shells export it), else 80.
 */
export function resolveTableWidth(stdoutColumns: unknown, env: Readonly<Record<string, string | undefined>>): number {
  if (typeof stdoutColumns === 'number' && Number.isInteger(stdoutColumns) && stdoutColumns > 0) return stdoutColumns;
  const fromEnv = Number(env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 80;
}
