import { describe, expect, it } from 'vitest';
import { parseCloudsYaml } from '../../../src/config/parse-clouds-yaml.js';

describe('parseCloudsYaml', () => {
  it.each([
    { case: 'an all-digit id keeps its leading zero', text: 'project_id: 0123\n', expected: { project_id: '0123' } },
    { case: 'a boolean stays text for the option types', text: 'verify: false\n', expected: { verify: 'false' } },
    { case: 'a number stays as written', text: 'api_timeout: 1e3\n', expected: { api_timeout: '1e3' } },
    { case: 'quoted strings', text: 'password: "a#b: c"\n', expected: { password: 'a#b: c' } },
    { case: 'null, ~ and empty values are dropped', text: 'a:\nb: ~\nc: null\nd: x\n', expected: { d: 'x' } },
    { case: 'lists', text: 'regions: [a, b]\n', expected: { regions: ['a', 'b'] } },
    { case: 'anchors and aliases', text: 'x: &u http://k\ny: *u\n', expected: { x: 'http://k', y: 'http://k' } },
    { case: 'merge keys, own keys winning', text: 'base: &b {a: 1, b: 2}\nc:\n  <<: *b\n  b: 3\n',
      expected: { base: { a: '1', b: '2' }, c: { a: '1', b: '3' } } },
    { case: 'JSON (clouds.json)', text: '{"clouds": {"x": {"auth": {"auth_url": "http://k"}}}}',
      expected: { clouds: { x: { auth: { auth_url: 'http://k' } } } } },
  ])('parseCloudsYaml: $case', ({ text, expected }) => {
    expect(parseCloudsYaml(text)).toEqual({ ok: true, tree: expected });
  });

  it('parseCloudsYaml: an empty file is an empty tree', () => {
    expect(parseCloudsYaml('# nothing\n')).toEqual({ ok: true, tree: undefined });
  });

  it('parseCloudsYaml: a duplicate key is an error at its line', () => {
    expect(parseCloudsYaml('clouds:\n  a: {}\n  a: {}\n')).toEqual({
      ok: false, line: 3, column: 3, reason: 'a key appears twice in one mapping',
    });
  });

  it('parseCloudsYaml: a syntax error reports its position, never the text around it', () => {
    const result = parseCloudsYaml('clouds:\n  a:\n    auth:\n      password: [Sup3rSecret\n');
    expect(result).toMatchObject({ ok: false });
    expect(JSON.stringify(result)).not.toContain('Sup3rSecret');
  });
});
