/** Below this a column is not narrowed: a table that cannot fit even so is printed wider than the terminal. */
export const MIN_COLUMN_WIDTH = 3;

/** The frame of a table of `count` columns: `| ` before, ` | ` between, ` |` after. */
export function tableFrameWidth(count: number): number {
  return count === 0 ? 0 : 3 * count + 1;
}

/**
 * The width of each column so that the table fits `total` terminal cells, as cliff's --fit-width does: when the
 * natural widths fit they are kept; else, narrowest first, a column keeps its width when it is at most its fair share
 * of the room left (the room divided by the columns still to place), and the others get that fair share, so the
 * widest columns are the ones wrapped. `natural` is each column's widest cell (in terminal cells).
 */
export function fitColumnWidths(natural: readonly number[], total: number): readonly number[] {
  let room = total - tableFrameWidth(natural.length);
  if (natural.reduce((sum, width) => sum + width, 0) <= room) return natural;
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

/**
 * The table's width: the terminal's columns when stdout is one, else $COLUMNS (as shells export it), else 80.
 */
export function resolveTableWidth(stdoutColumns: unknown, env: Readonly<Record<string, string | undefined>>): number {
  if (typeof stdoutColumns === 'number' && Number.isInteger(stdoutColumns) && stdoutColumns > 0) return stdoutColumns;
  const fromEnv = Number(env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 80;
}
