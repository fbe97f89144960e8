// Every list command in every osc format: `-f value|csv|table|json|yaml`, `-c COLUMN` (header or JSON key), an unknown
// column, and `--json` still the command's document. Glance answers with recorded bodies (stores) or a scripted
// Glance (status --matrix, prewarm, sync); traits reads the recorded Debian 12 host's XML.
import nock from 'nock';
import stringWidth from 'string-width';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { storesJsonSchema } from '../../../src/contract/stores-document.js';
import { matrixJsonSchema } from '../../../src/contract/matrix-document.js';
import { prewarmJsonSchema } from '../../../src/contract/prewarm-document.js';
import { syncJsonSchema } from '../../../src/contract/sync-document.js';
import { traitsJsonSchema } from '../../../src/contract/traits-document.js';
import { GLANCE_ROOT, loadExchange, replay } from '../../helpers/fixtures.js';
import { KVM_HOST, runFerry, type CliRun } from '../../helpers/run-ferry.js';
import { runWith } from '../prewarm/cli-harness.js';
import { imageId, scriptedImages } from '../prewarm/scripted-images.js';

const T1 = 'a8860fd2-0000-4000-8000-000000000001';
const CLOUD = ['--os-token', 'unit-token', '--glance-endpoint', GLANCE_ROOT];
const policy = 'version: 1\nplacements:\n  - name: golden\n    images: {tag: golden}\n    stores: [site-a]\n';
const readPolicy = (path: string): string => {
  if (path !== 'edge.yaml') throw new Error(`ENOENT: no such file or directory, open '${path}'`);
  return policy;
};
const glance = () => scriptedImages({
  [imageId(1)]: { name: 'golden-1', tags: ['golden'], reads: [
    { stores: ['central'] }, { stores: ['central'], lock: T1, importing: ['site-a'] }, { stores: ['central', 'site-a'], importing: [], failed: [] }] },
  [imageId(2)]: { name: 'ゴールデン-2 🚀', tags: ['golden'], reads: [{ stores: ['central', 'site-a'] }] },
});

interface ListCase {
  readonly command: string;
  readonly run: (flags: readonly string[]) => Promise<CliRun>;
  /** The rows as `--json` holds them, each reduced to the list's columns. */
  readonly rowsOf: (document: unknown) => readonly Record<string, unknown>[];
  readonly headers: readonly string[];
  /** A column given by its header, its JSON key, and the values `-f value -c` prints for it. */
  readonly pick: { readonly header: string; readonly key: string; readonly values: readonly string[] };
}

const STORE_HEADERS = ['ID', 'Description', 'Default', 'Read Only', 'Copy Target', 'Type', 'Pool', 'FSID', 'Local', 'Answers', 'Answers Why'];
const PREWARM_HEADERS = ['Image', 'Name', 'Store', 'Planned', 'Action', 'Outcome', 'Failure', 'Skip Reason', 'Code', 'Reason', 'Seconds', 'Task',
  'Running In Glance'];

const CASES: readonly ListCase[] = [
  {
    command: 'stores',
    run: (flags) => {
      replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail'));
      return runFerry(['stores', '--store', 'site-b', ...CLOUD, ...flags]);
    },
    rowsOf: (document) => storesJsonSchema.parse(document).stores,
    headers: STORE_HEADERS,
    pick: { header: 'ID', key: 'id', values: ['central', 'site-a', 'site-b', 'broken'] },
  },
  {
    command: 'status --matrix',
    run: (flags) => runWith(['status', '--matrix', '--tag', 'golden', '--store', 'central', '--store', 'site-a', ...flags], glance()),
    rowsOf: (document) => matrixJsonSchema.parse(document).images.map(({ cells, ...image }) => ({ ...image, ...cells })),
    headers: ['Image', 'Name', 'Status', 'Disk Format', 'central', 'site-a'],
    pick: { header: 'site-a', key: 'site-a', values: ['missing', 'present'] },
  },
  {
    command: 'traits',
    run: (flags) => runFerry(['traits', ...KVM_HOST, ...flags]),
    rowsOf: (document) => {
      const json = traitsJsonSchema.parse(document);
      return json.traits.map((trait) => ({ trait, reason: json.reasons[trait] }));
    },
    headers: ['Trait', 'Reason'],
    pick: { header: 'Trait', key: 'trait', values: [] },
  },
  {
    command: 'prewarm',
    run: (flags) => runWith(['prewarm', '--tag', 'golden', '--store', 'site-a', '--dry-run', ...flags], glance()),
    // items[].transfer is --json only (docs/cli.md): a 14th column would not fit a row table into 80 cells.
    rowsOf: (document) => prewarmJsonSchema.parse(document).items.map(({ transfer: _transfer, ...row }) => row),
    headers: PREWARM_HEADERS,
    pick: { header: 'Name', key: 'name', values: ['golden-1', 'ゴールデン-2 🚀'] },
  },
  {
    command: 'sync',
    run: (flags) => runWith(['sync', '--policy', 'edge.yaml', ...flags], glance(), { readFile: readPolicy }),
    rowsOf: (document) => (syncJsonSchema.parse(document).result?.items ?? []).map(({ transfer: _transfer, ...row }) => row),
    headers: PREWARM_HEADERS,
    pick: { header: 'Outcome', key: 'outcome', values: ['copied', 'present'] },
  },
];

describe.each(CASES)('ferry $command as a list', ({ run, rowsOf, headers, pick }) => {
  const documentRows = async (): Promise<readonly Record<string, unknown>[]> => {
    const json = await run(['--json']);
    expect(json.code, json.stderr).toBe(0);
    return rowsOf(JSON.parse(json.stdout));
  };

  it('--json: the command\'s document, unchanged (parses with its schema)', async () => {
    expect((await documentRows()).length).toBeGreaterThan(0);
  });

  it('-f json: an array of row objects, the document\'s rows field for field; -f yaml: the same', async () => {
    const [rows, json, yaml] = await Promise.all([documentRows(), run(['-f', 'json']), run(['-f', 'yaml'])]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(rows);
    expect(parseYaml(yaml.stdout)).toEqual(rows);
  });

  it('-f value -c COLUMN: one line per row, by header or by JSON key', async () => {
    const rows = await documentRows();
    const expected = pick.values.length > 0 ? pick.values : rows.map((row) => String(row[pick.key]));
    const [byHeader, byKey] = await Promise.all([run(['-f', 'value', '-c', pick.header]), run(['-f', 'value', '-c', pick.key.toUpperCase()])]);
    expect(byHeader).toMatchObject({ code: 0, stdout: `${expected.join('\n')}\n` });
    expect(byKey.stdout).toBe(byHeader.stdout);
  });

  it('-f value: every field of a row, separated by a space', async () => {
    const [rows, value] = await Promise.all([documentRows(), run(['-f', 'value'])]);
    const lines = value.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(rows.length);
    expect(lines[0]).toBe(Object.values(rows[0]!).map((v) => (v === null ? '' : String(v as string | number | boolean))).join(' '));
  });

  it('-f csv: a header line of the column headers, one line per row', async () => {
    const [rows, csv] = await Promise.all([documentRows(), run(['-f', 'csv'])]);
    expect(csv.code, csv.stderr).toBe(0);
    const lines = csv.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(headers.join(','));
    expect(lines).toHaveLength(rows.length + 1);
  });

  it('-f table: a row table with the headers, every line the same width, within 80 cells (not a TTY, no $COLUMNS)', async () => {
    const table = await run(['-f', 'table']);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    const widths = new Set(lines.map((line) => stringWidth(line)));
    expect(widths.size).toBe(1);
    expect([...widths][0]).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^\+-+(\+-+)*\+$/);
    // 13 columns in 80 cells: the headers themselves may wrap.
    expect(lines[1]?.startsWith(`| ${headers[0]!.slice(0, 3)}`)).toBe(true);
  });

  it('-c COLUMN alone: a row table of that column', async () => {
    const table = await run(['-c', pick.key]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[1]).toMatch(new RegExp(`^\\| ${pick.header} +\\|$`));
  });

  it('-c with an unknown column: FERRY_INVALID_OPTION (exit 2) naming the columns there are', async () => {
    const bad = await run(['-f', 'value', '-c', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain("no column 'nope' in this list (from -c)");
    expect(bad.stderr).toContain(`Columns: ${headers.join(', ')}.`);
  });
});

describe('list output, details', () => {
  it('ferry stores -f value -c id: the store ids, one per line (the osc habit)', async () => {
    replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail'));
    const run = await runFerry(['stores', ...CLOUD, '-f', 'value', '-c', 'id']);
    expect(run).toMatchObject({ code: 0, stdout: 'central\nsite-a\nsite-b\nbroken\n' });
  });

  it('ferry stores -f table: fits $COLUMNS (120), long reasons wrapped, short columns whole', async () => {
    replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail'));
    const run = await runFerry(['stores', '--store', 'site-b', ...CLOUD, '-f', 'table'], { env: { COLUMNS: '120' } });
    const lines = run.stdout.trimEnd().split('\n');
    expect(new Set(lines.map((line) => stringWidth(line)))).toEqual(new Set([120]));
    expect(lines.some((line) => /^\| site-b +\| .* \| images +\| +\| true +\|/.test(line))).toBe(true);
    expect(lines.length).toBeGreaterThan(4 + 4);
  });

  it('ferry stores --json -c local: --json keeps the document, -c its top-level fields (as before)', async () => {
    replay(nock(GLANCE_ROOT), loadExchange('glance', 'info-stores-detail'));
    const run = await runFerry(['stores', '--store', 'site-b', ...CLOUD, '--json', '-c', 'local']);
    expect(JSON.parse(run.stdout)).toEqual({ local: 'site-b' });
  });

  it('ferry status --matrix -f table: a CJK and emoji name keeps the borders in line', async () => {
    const run = await runWith(['status', '--matrix', '--tag', 'golden', '--store', 'site-a', '-f', 'table', '-c', 'name', '-c', 'site-a'], glance());
    expect(run.stdout.trimEnd().split('\n')).toEqual([
      '+-----------------+---------+',
      '| Name            | site-a  |',
      '+-----------------+---------+',
      '| golden-1        | missing |',
      '| ゴールデン-2 🚀 | present |',
      '+-----------------+---------+',
    ]);
  });

  it('ferry status --matrix: a store named like an image column is keyed store:NAME', async () => {
    const images = scriptedImages({ [imageId(1)]: { name: 'one', reads: [{ stores: ['central'] }] } },
      { stores: [{ id: 'central', type: 'file', default: true }, { id: 'name', type: 'rbd' }] });
    const run = await runWith(['status', '--matrix', '--all', '-f', 'json'], images);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ image: imageId(1), name: 'one', status: 'active', disk_format: 'raw', central: 'present', 'store:name': 'missing' }]);
  });

  it('ferry status IMAGE -f csv: one object, refused after the read, naming the list commands', async () => {
    const run = await runWith(['status', 'golden-1', '-f', 'csv'], glance());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('-f csv prints lists, and ferry status prints one object');
  });

  it('ferry ensure -f csv: refused before anything runs', async () => {
    let connected = false;
    const run = await runFerry(['ensure', 'cirros', '--store', 'site-b', '-f', 'csv'], {
      connect: () => {
        connected = true;
        return Promise.reject(new Error('must not connect'));
      },
    });
    expect(run.code).toBe(2);
    expect(connected).toBe(false);
    expect(run.stderr).toContain('-f csv prints lists, and ferry ensure prints one object');
  });

  it('ferry sync -f value on a dry run: the planned rows; -f json of an empty list is []', async () => {
    const run = await runWith(['sync', '--policy', 'edge.yaml', '--dry-run', '-f', 'value', '-c', 'name', '-c', 'planned'], glance(), { readFile: readPolicy });
    expect(run.stdout).toBe('golden-1 missing\nゴールデン-2 🚀 present\n');
    const none = await runWith(['prewarm', '--tag', 'nothing', '--store', 'site-a', '-f', 'json'], glance());
    expect(none).toMatchObject({ code: 0, stdout: '[]\n' });
  });
});

describe('-c checked before the command runs', () => {
  it('ferry prewarm -c nope: refused before any Glance call, nothing copied', async () => {
    const images = glance();
    const run = await runWith(['prewarm', '--tag', 'golden', '--store', 'site-a', '-f', 'value', '-c', 'nope'], images);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("no column 'nope' in this list (from -c)");
    expect(images.listQueries).toEqual([]);
    expect(images.copyRequests).toEqual([]);
  });

  it('ferry stores -c nope: refused before Glance is asked (no recorded exchange is needed)', async () => {
    const run = await runFerry(['stores', ...CLOUD, '-c', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Columns: ID, Description, Default, Read Only');
  });
});
