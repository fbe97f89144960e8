import stringWidth from 'string-width';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { fitColumnWidths, MIN_COLUMN_WIDTH, resolveTableWidth } from '../../../src/cli/output/fit-column-widths.js';
import { renderCsv } from '../../../src/cli/output/render-csv.js';
import { renderRows } from '../../../src/cli/output/render-rows.js';
import { selectRowColumns, type RowList } from '../../../src/cli/output/row-list.js';
import { rowTable } from '../../../src/cli/output/row-table.js';

const LIST: RowList = {
  columns: [{ key: 'id', header: 'ID' }, { key: 'read_only', header: 'Read Only' }, { key: 'pool', header: 'Pool' }],
  rows: [{ id: 'site-a', read_only: false, pool: 'images' }, { id: 'central', read_only: true, pool: null }],
};

/** Every line of a drawn table, in terminal cells. */
const lineWidths = (table: string): number[] => table.split('\n').map((line) => stringWidth(line));

describe('selectRowColumns', () => {
  it.each([['id'], ['ID'], ['Id']])('selectRowColumns: %s names the ID column (header or key, any case)', (name) => {
    expect(selectRowColumns(LIST, [name]).map((c) => c.key)).toEqual(['id']);
  });
  it.each([['Read Only'], ['read_only'], ['READ-ONLY'], ['read only']])('selectRowColumns: %s names the Read Only column', (name) => {
    expect(selectRowColumns(LIST, [name]).map((c) => c.key)).toEqual(['read_only']);
  });
  it('selectRowColumns: none asked = all, in the list\'s order; asked = in the order asked', () => {
    expect(selectRowColumns(LIST, []).map((c) => c.key)).toEqual(['id', 'read_only', 'pool']);
    expect(selectRowColumns(LIST, ['pool', 'id']).map((c) => c.key)).toEqual(['pool', 'id']);
  });
  it('selectRowColumns: an unknown column is FERRY_INVALID_OPTION naming every unknown one and the columns there are', () => {
    expect(() => selectRowColumns(LIST, ['id', 'nope', 'size'])).toThrow(expect.objectContaining({
      code: 'FERRY_INVALID_OPTION',
      message: "no column 'nope', 'size' in this list (from -c)",
      hint: 'Columns: ID, Read Only, Pool. -c takes the header or the JSON key, in any case.',
    }));
  });
});

describe('renderRows', () => {
  it('renderRows value: each row\'s fields separated by a space, null as empty', async () => {
    expect(await renderRows(LIST, 'value', [], 80)).toBe('site-a false images\ncentral true ');
    expect(await renderRows(LIST, 'value', ['id'], 80)).toBe('site-a\ncentral');
  });
  it('renderRows csv: a header of the headers, then the rows', async () => {
    expect(await renderRows(LIST, 'csv', ['ID', 'read_only'], 80)).toBe('ID,Read Only\nsite-a,false\ncentral,true');
  });
  it('renderRows json and yaml: an array of row objects keyed by the JSON keys, values keep their types', async () => {
    const expected = [{ id: 'site-a', pool: 'images' }, { id: 'central', pool: null }];
    expect(JSON.parse(await renderRows(LIST, 'json', ['id', 'pool'], 80))).toEqual(expected);
    expect(parseYaml(await renderRows(LIST, 'yaml', ['id', 'pool'], 80))).toEqual(expected);
    expect(JSON.parse(await renderRows(LIST, 'json', [], 80))).toEqual(LIST.rows);
  });
  it('renderRows: an empty list is [] in json and yaml, nothing in value, the header in csv and table', async () => {
    const empty: RowList = { columns: LIST.columns, rows: [] };
    expect(await renderRows(empty, 'json', [], 80)).toBe('[]');
    expect(parseYaml(await renderRows(empty, 'yaml', [], 80))).toEqual([]);
    expect(await renderRows(empty, 'value', [], 80)).toBe('');
    expect(await renderRows(empty, 'csv', [], 80)).toBe('ID,Read Only,Pool');
    expect((await renderRows(empty, 'table', ['id'], 80)).split('\n')).toEqual(['+----+', '| ID |', '+----+']);
  });
  it('renderRows table: the osc row table, headers as shown', async () => {
    expect((await renderRows(LIST, 'table', [], 80)).split('\n')).toEqual([
      '+---------+-----------+--------+',
      '| ID      | Read Only | Pool   |',
      '+---------+-----------+--------+',
      '| site-a  | false     | images |',
      '| central | true      |        |',
      '+---------+-----------+--------+',
    ]);
  });
});

describe('renderCsv', () => {
  it('renderCsv: quotes only fields with a comma, a double quote (doubled) or a line break (RFC 4180, quote minimal)', () => {
    expect(renderCsv(['a', 'b'], [['plain', 'has, comma'], ['say "hi"', 'two\nlines'], ['cr\r', ' spaced ']]))
      .toBe('a,b\nplain,"has, comma"\n"say ""hi""","two\nlines"\n"cr\r", spaced ');
  });
});

describe('fitColumnWidths', () => {
  it('fitColumnWidths: natural widths that fit are kept', () => {
    expect(fitColumnWidths([5, 10, 20], 80)).toEqual([5, 10, 20]);
    // 3 columns take 10 cells of frame: 70 left, exactly the natural widths.
    expect(fitColumnWidths([20, 20, 30], 80)).toEqual([20, 20, 30]);
  });
  it('fitColumnWidths: narrow columns keep their width, the widest share what is left evenly', () => {
    // 80 - 10 frame = 70: 5 stays whole, 65 over the two wide columns (the extra cell to the first).
    expect(fitColumnWidths([5, 100, 200], 80)).toEqual([5, 33, 32]);
    expect(fitColumnWidths([5, 40, 200], 80)).toEqual([5, 33, 32]);
    expect(fitColumnWidths([5, 20, 200], 80)).toEqual([5, 20, 45]);
  });
  it('fitColumnWidths: each column keeps its longest word whole when the words fit (up to 16 cells)', () => {
    // room 70: the words (12, 16 of a 30-cell word, 9) fit, the rest is poured into the shortest columns first.
    expect(fitColumnWidths([40, 100, 9], 80, [12, 30, 9])).toEqual([31, 30, 9]);
    // 6 columns, room 61: without the words the narrow ones would get 10 each and "destination" would break.
    expect(fitColumnWidths([11, 11, 11, 11, 11, 200], 80, [11, 11, 11, 11, 11, 5])).toEqual([11, 11, 11, 11, 11, 6]);
  });
  it('fitColumnWidths: when even the words do not fit, cliff\'s fair shares', () => {
    // room 26 < 16 + 16: each column over the fair share (13) gets an equal part.
    expect(fitColumnWidths([40, 40], 33, [20, 20])).toEqual([13, 13]);
    expect(fitColumnWidths([4, 40, 40], 40, [4, 20, 20])).toEqual([4, 13, 13]);
  });
  it('fitColumnWidths: the result fills the room exactly when it has to narrow', () => {
    for (const total of [31, 47, 80, 120, 200]) {
      const widths = fitColumnWidths([12, 60, 90, 300, 7], total);
      expect(widths.reduce((a, b) => a + b, 0) + 16).toBe(total);
    }
  });
  it(`fitColumnWidths: no column below ${MIN_COLUMN_WIDTH} cells, even when the table then overflows`, () => {
    expect(fitColumnWidths([10, 10, 10, 10], 12)).toEqual([3, 3, 3, 3]);
    expect(fitColumnWidths([1, 10], 8)).toEqual([1, 3]);
    expect(fitColumnWidths([12, 60, 90, 300, 7], 30)).toEqual([3, 3, 3, 3, 3]);
  });
  it('resolveTableWidth: the terminal\'s columns, else $COLUMNS, else 80', () => {
    expect(resolveTableWidth(132, { COLUMNS: '40' })).toBe(132);
    expect(resolveTableWidth(undefined, { COLUMNS: '40' })).toBe(40);
    expect(resolveTableWidth(undefined, { COLUMNS: 'wide' })).toBe(80);
    expect(resolveTableWidth(0, {})).toBe(80);
  });
});

describe('rowTable', () => {
  const LONG = 'rbd ls --pool images (-c /etc/ceph/site-a.conf --id nova) answered (3 RBD images) and said nothing else at all';

  it.each([40, 60, 80, 100])('rowTable: a long cell is wrapped so that every line is %i cells wide', (width) => {
    const table = rowTable(['ID', 'Answers Why'], [['site-a', LONG], ['central', 'not checked']], width);
    expect(new Set(lineWidths(table))).toEqual(new Set([width]));
    // Nothing is lost: the wrapped words, read back, are the cell.
    const cell = table.split('\n').slice(3, -1).map((line) => line.split('|')[2]!.trim()).filter((part) => part !== '' && part !== 'not checked');
    expect(cell.join(' ')).toBe(LONG);
  });

  it('rowTable: a table narrower than the terminal keeps its natural widths', () => {
    expect(lineWidths(rowTable(['ID'], [['site-a']], 80))).toEqual([10, 10, 10, 10, 10]);
  });

  it('rowTable: CJK characters count two cells each, so the borders line up', () => {
    const table = rowTable(['名前', 'Store'], [['日本語のイメージ', 'site-a'], ['cirros', '東京']], 80);
    expect(table.split('\n')).toEqual([
      '+------------------+--------+',
      '| 名前             | Store  |',
      '+------------------+--------+',
      '| 日本語のイメージ | site-a |',
      '| cirros           | 東京   |',
      '+------------------+--------+',
    ]);
  });

  it('rowTable: emoji (also joined sequences) count two cells', () => {
    const table = rowTable(['Image', 'Note'], [['🚀 rocket', 'ok'], ['👩‍💻 dev', '✅']], 80);
    expect(new Set(lineWidths(table))).toEqual(new Set([stringWidth('| 🚀 rocket | Note |')]));
  });

  it('rowTable: wide characters are wrapped by cells, never split, and the lines still line up', () => {
    const text = '東京の中央ストアにコピーされたイメージです';
    const table = rowTable(['ID', 'Description'], [['site-a', text]], 30);
    expect(new Set(lineWidths(table))).toEqual(new Set([30]));
    const pieces = table.split('\n').slice(3, -1).map((line) => line.split('|')[2]!.trim());
    expect(pieces.join('')).toBe(text);
    expect(pieces.length).toBeGreaterThan(1);
  });
});
