import { describe, expect, it } from 'vitest';
import { parseOutputFormat } from '../../../src/cli/output/output-format.js';
import { renderDocument } from '../../../src/cli/output/render-document.js';
import { renderOutput } from '../../../src/cli/output/render-output.js';
import { errorJson, errorJsonSchema } from '../../../src/contract/error-document.js';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { DOMCAPS, KVM_HOST, runFerry } from '../../helpers/run-ferry.js';

describe('parseOutputFormat', () => {
  it.each([
    { argv: ['ensure', 'x'], format: 'text', columns: [], wholeDocument: false, rest: ['ensure', 'x'] },
    { argv: ['ensure', 'x', '--json'], format: 'json', columns: [], wholeDocument: true, rest: ['ensure', 'x'] },
    { argv: ['ensure', '-f', 'yaml', 'x'], format: 'yaml', columns: [], wholeDocument: false, rest: ['ensure', 'x'] },
    { argv: ['ensure', '--format=value', '-c', 'image', '--column', 'store'], format: 'value', columns: ['image', 'store'], wholeDocument: false, rest: ['ensure'] },
    { argv: ['traits', '-c', 'traits'], format: 'table', columns: ['traits'], wholeDocument: false, rest: ['traits'] },
    { argv: ['stores', '-f', 'csv'], format: 'csv', columns: [], wholeDocument: false, rest: ['stores'] },
    { argv: ['stores', '-f', 'json'], format: 'json', columns: [], wholeDocument: false, rest: ['stores'] },
    { argv: ['stores', '-f', 'value', '--json'], format: 'json', columns: [], wholeDocument: true, rest: ['stores'] },
    { argv: ['stores', '--json', '-f', 'value'], format: 'value', columns: [], wholeDocument: false, rest: ['stores'] },
    { argv: ['ensure', '--', '-f'], format: 'text', columns: [], wholeDocument: false, rest: ['ensure', '--', '-f'] },
  ])('parseOutputFormat($argv)', ({ argv, format, columns, wholeDocument, rest }) => {
    expect(parseOutputFormat(argv)).toEqual({ format, columns, wholeDocument, rest });
  });

  it('parseOutputFormat: an unknown format names the ones there are', () => {
    expect(() => parseOutputFormat(['ensure', '-f', 'xml'])).toThrow(/unknown output format 'xml'/);
    expect(() => parseOutputFormat(['ensure', '-f', 'xml'])).toThrow(expect.objectContaining({ hint: 'Pass -f json|yaml|value|csv|table, or leave it out for the command\'s own text.' }));
    expect(() => parseOutputFormat(['ensure', '-c'])).toThrow(/-c needs a value/);
  });
});

describe('renderDocument', () => {
  const doc = { image: 'abc', copied: false, seconds: 0.5, target: null, stores: ['a', 'b'] };
  it('renderDocument: json and yaml keep the document; -c picks fields in order', () => {
    expect(JSON.parse(renderDocument(doc, 'json', []))).toEqual(doc);
    expect(renderDocument(doc, 'yaml', ['stores', 'image'])).toBe('stores:\n  - a\n  - b\nimage: abc');
  });
  it('renderDocument: value prints bare values one per line, objects as compact JSON', () => {
    expect(renderDocument(doc, 'value', [])).toBe('abc\nfalse\n0.5\n\n["a","b"]');
    expect(renderDocument(doc, 'value', ['image'])).toBe('abc');
  });
  it('renderOutput: one object in a table is field | value', async () => {
    const table = await renderOutput({ command: 'ensure', document: doc, rows: undefined, choice: { format: 'table', columns: ['image', 'copied'], wholeDocument: false }, width: 80, terminal: false });
    expect(table.split('\n')).toEqual([
      '+--------+-------+', '| Field  | Value |', '+--------+-------+', '| image  | abc   |', '| copied | false |', '+--------+-------+']);
  });
  it('renderOutput: the field | value table of one object fits the width too', async () => {
    const long = { image: 'abc', reason: 'word '.repeat(40).trim() };
    const table = await renderOutput({ command: 'ensure', document: long, rows: undefined, choice: { format: 'table', columns: [], wholeDocument: false }, width: 50, terminal: false });
    expect(new Set(table.split('\n').map((line) => line.length))).toEqual(new Set([50]));
  });
  it('renderDocument: an unknown column is refused with the columns there are', () => {
    expect(() => renderDocument(doc, 'json', ['nope'])).toThrow(expect.objectContaining({ code: 'FERRY_INVALID_OPTION',
      hint: 'Columns: image, copied, seconds, target, stores.' }));
  });
});

describe('errorJson', () => {
  it('errorJson: carries details, with secret-named keys redacted at any depth', () => {
    const error = new FerryError('FERRY_HTTP', 'Glance said 500', 'Retry later.', {
      method: 'GET', url: 'http://glance/v2/images/x', status: 500, requestId: 'req-1', token: 'gAAAA-secret', nested: { headers: { 'x-auth-token': 'x' }, ok: 1 },
    });
    const json = errorJson(error);
    expect(errorJsonSchema.parse(json)).toEqual({ error: { code: 'FERRY_HTTP', message: 'Glance said 500', hint: 'Retry later.', details: {
      method: 'GET', url: 'http://glance/v2/images/x', status: 500, request_id: 'req-1', token: '<redacted>', nested: { headers: '<redacted>', ok: 1 } } } });
    expect(JSON.stringify(json)).not.toContain('secret');
  });
});

describe('ferry output flags end to end (runCli)', () => {
  const traits = ['traits', ...KVM_HOST];
  it('ferry traits --json -c catalogue_version: --json keeps the document, -c picks its fields', async () => {
    const run = await runFerry([...traits, '--json', '-c', 'catalogue_version']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ catalogue_version: '2.9.0' });
  });
  it('ferry config show -f yaml parses back to the JSON document (one object: its document in every format)', async () => {
    const [yaml, json] = await Promise.all([runFerry(['config', 'show', '-f', 'yaml']), runFerry(['config', 'show', '--json'])]);
    const { parse } = await import('yaml');
    expect(yaml.code, yaml.stderr).toBe(0);
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });
  it('ferry: an error with --json carries details', async () => {
    const run = await runFerry(['traits', '--domcaps', `${DOMCAPS}/missing.xml`, '--json']);
    const json = errorJsonSchema.parse(JSON.parse(run.stdout));
    expect(run.code).not.toBe(0);
    expect(json.error.details).toBeTypeOf('object');
  });
  it('ferry -f xml: refused as an input error, in text', async () => {
    const run = await runFerry([...traits, '-f', 'xml']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown output format 'xml'");
  });
  it('ferry help traits is ferry traits --help; help traits report is the two-word command', async () => {
    const [help, direct, report] = await Promise.all([runFerry(['help', 'traits']), runFerry(['traits', '--help']), runFerry(['help', 'traits', 'report'])]);
    expect(help.stdout).toBe(direct.stdout);
    expect(help.stdout).toMatch(/^Usage: ferry traits /);
    expect(report.stdout).toMatch(/^Usage: ferry traits report /);
  });
});

describe('duration flags', () => {
  it.each([['10m', '600'], ['90s', '90'], ['1h', '3600'], ['45', '45'], ['0', '0'], ['1500ms', '1.5']])('normalizeDurationFlags: --timeout %s → %s seconds', async (given, seconds) => {
    const { normalizeDurationFlags } = await import('../../../src/cli/duration-flags.js');
    const { configFlag } = await import('../../../src/cli/global-options.js');
    expect(normalizeDurationFlags({ timeout: given, store: 'site-b' }, [configFlag('timeout'), configFlag('store')])).toEqual({ timeout: seconds, store: 'site-b' });
  });

  it('every config flag in seconds takes a duration (one syntax for every time flag)', async () => {
    const { CLOUD_OPTIONS, GENERAL_OPTIONS, configFlag } = await import('../../../src/cli/global-options.js');
    const timeFlags = [...CLOUD_OPTIONS, ...GENERAL_OPTIONS, ...['timeout', 'poll-interval', 'stale-lock-after'].map(configFlag)].filter((o) => /timeout|interval|after/.test(o.name));
    expect(timeFlags.map((o) => o.name).sort()).toEqual(['connect-timeout', 'poll-interval', 'request-timeout', 'stale-lock-after', 'timeout']);
    expect(timeFlags.every((o) => o.duration === true && o.value === 'DURATION')).toBe(true);
  });

  it('ferry ensure --timeout 10m reaches the config as 600 s; --timeout 10x is refused naming the flag', async () => {
    let timeoutMs: number | undefined;
    const run = await runFerry(['ensure', 'cirros', '--store', 'site-b', '--timeout', '10m', '--fsid', '6f0a2c1e-3b5d-4e8f-9a7b-1c2d3e4f5a6b', '--os-token', 't', '--glance-endpoint', 'http://127.0.0.1:9'], {
      connect: (config) => {
        timeoutMs = config.copy.timeoutMs;
        return Promise.reject(new FerryError('FERRY_ABORTED', 'stop here', 'test'));
      },
    });
    expect(run.code).toBe(130);
    expect(timeoutMs).toBe(600_000);
    const bad = await runFerry(['ensure', 'cirros', '--store', 'site-b', '--timeout', '10x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--timeout must be a duration such as 30s, 5m, 1h30m or a number of seconds, got '10x'");
  });
});
