import { describe, expect, it } from 'vitest';
import { parseOutputFormat } from '../../../src/cli/output/output-format.js';
import { renderDocument } from '../../../src/cli/output/render-document.js';
import { errorJson, errorJsonSchema } from '../../../src/cli/output/error-json.js';
import { FerryError } from '../../../src/errors/ferry-error.js';
import { DOMCAPS, KVM_HOST, runFerry } from '../../helpers/run-ferry.js';

describe('parseOutputFormat', () => {
  it.each([
    { argv: ['ensure', 'x'], format: 'text', columns: [], rest: ['ensure', 'x'] },
    { argv: ['ensure', 'x', '--json'], format: 'json', columns: [], rest: ['ensure', 'x'] },
    { argv: ['ensure', '-f', 'yaml', 'x'], format: 'yaml', columns: [], rest: ['ensure', 'x'] },
    { argv: ['ensure', '--format=value', '-c', 'image', '--column', 'store'], format: 'value', columns: ['image', 'store'], rest: ['ensure'] },
    { argv: ['traits', '-c', 'traits'], format: 'table', columns: ['traits'], rest: ['traits'] },
    { argv: ['ensure', '--', '-f'], format: 'text', columns: [], rest: ['ensure', '--', '-f'] },
  ])('parseOutputFormat($argv)', ({ argv, format, columns, rest }) => {
    expect(parseOutputFormat(argv)).toEqual({ format, columns, rest });
  });

  it('parseOutputFormat: an unknown format names the ones there are', () => {
    expect(() => parseOutputFormat(['ensure', '-f', 'csv'])).toThrow(/unknown output format 'csv'/);
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
  it('renderDocument: table is field | value', () => {
    expect(renderDocument(doc, 'table', ['image', 'copied']).split('\n')).toEqual([
      '+--------+-------+', '| Field  | Value |', '+--------+-------+', '| image  | abc   |', '| copied | false |', '+--------+-------+']);
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
  it('ferry traits -f value -c catalogue_version prints the bare value', async () => {
    const run = await runFerry([...traits, '-f', 'value', '-c', 'catalogue_version']);
    expect(run).toMatchObject({ code: 0, stdout: '2.9.0\n' });
  });
  it('ferry traits -f yaml parses back to the JSON document', async () => {
    const [yaml, json] = await Promise.all([runFerry([...traits, '-f', 'yaml']), runFerry([...traits, '--json'])]);
    const { parse } = await import('yaml');
    expect(parse(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });
  it('ferry: an error with --json carries details', async () => {
    const run = await runFerry(['traits', '--domcaps', `${DOMCAPS}/missing.xml`, '--json']);
    const json = errorJsonSchema.parse(JSON.parse(run.stdout));
    expect(run.code).not.toBe(0);
    expect(json.error.details).toBeTypeOf('object');
  });
  it('ferry -f csv: refused as an input error, in text', async () => {
    const run = await runFerry([...traits, '-f', 'csv']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown output format 'csv'");
  });
  it('ferry help traits is ferry traits --help; help traits report is the two-word command', async () => {
    const [help, direct, report] = await Promise.all([runFerry(['help', 'traits']), runFerry(['traits', '--help']), runFerry(['help', 'traits', 'report'])]);
    expect(help.stdout).toBe(direct.stdout);
    expect(help.stdout).toMatch(/^Usage: ferry traits /);
    expect(report.stdout).toMatch(/^Usage: ferry traits report /);
  });
});
