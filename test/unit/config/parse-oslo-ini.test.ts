import { describe, expect, it } from 'vitest';
import { parseOsloIni } from '../../../src/config/parse-oslo-ini.js';

function valueOf(text: string, section: string, key: string): string | undefined {
  const result = parseOsloIni(text);
  if (!result.ok) throw new Error(`unexpected parse error at line ${result.line}: ${result.reason}`);
  return result.sections.get(section)?.get(key)?.value;
}

describe('parseOsloIni', () => {
  it.each([
    { case: 'plain value', text: '[libvirt]\nimages_rbd_pool = vms\n', section: 'libvirt', key: 'images_rbd_pool', expected: 'vms' },
    { case: "'#' inside a value is kept", text: '[DEFAULT]\ntransport_url = rabbit://n:p#w@h/\n', section: 'DEFAULT', key: 'transport_url', expected: 'rabbit://n:p#w@h/' },
    { case: "';' inside a value is kept", text: '[a]\nk = x ; not a comment\n', section: 'a', key: 'k', expected: 'x ; not a comment' },
    { case: 'comment lines are skipped', text: '[a]\n# k = 1\n; k = 2\nk = 3\n', section: 'a', key: 'k', expected: '3' },
    { case: 'double quotes are stripped', text: '[a]\nk = "vms"\n', section: 'a', key: 'k', expected: 'vms' },
    { case: 'single quotes are stripped', text: "[a]\nk = 'vms'\n", section: 'a', key: 'k', expected: 'vms' },
    { case: 'unmatched quotes stay', text: '[a]\nk = "vms\'\n', section: 'a', key: 'k', expected: '"vms\'' },
    { case: 'colon separator', text: '[a]\nk: v\n', section: 'a', key: 'k', expected: 'v' },
    { case: 'the first separator wins', text: '[a]\nurl = http://h:1\n', section: 'a', key: 'url', expected: 'http://h:1' },
    { case: 'empty value', text: '[a]\nk =\n', section: 'a', key: 'k', expected: '' },
    { case: 'continuation lines join with a newline', text: '[a]\nk = x,\n    y,\n\tz\n', section: 'a', key: 'k', expected: 'x,\ny,\nz' },
    { case: 'a blank line ends a continued value', text: '[a]\nk = x\n\nj = y\n', section: 'a', key: 'k', expected: 'x' },
    { case: 'repeated sections merge', text: '[a]\nk = 1\n[b]\nj = 2\n[a]\nm = 3\n', section: 'a', key: 'k', expected: '1' },
    { case: 'the last of a repeated key wins', text: '[a]\nk = 1\n[a]\nk = 2\n', section: 'a', key: 'k', expected: '2' },
    { case: 'group names are lower-cased', text: '[LibVirt]\nk = 1\n', section: 'libvirt', key: 'k', expected: '1' },
    { case: 'DEFAULT keeps its case', text: '[DEFAULT]\nk = 1\n', section: 'DEFAULT', key: 'k', expected: '1' },
    { case: 'CRLF line ends', text: '[a]\r\nk = v\r\n', section: 'a', key: 'k', expected: 'v' },
    { case: 'trailing spaces are trimmed', text: '[a]\nk = v   \n', section: 'a', key: 'k', expected: 'v' },
  ])('parseOsloIni: $case', ({ text, section, key, expected }) => {
    expect(valueOf(text, section, key)).toBe(expected);
  });

  it.each([
    { case: 'an option before any section', text: 'k = v\n', line: 1, reason: 'before any [section]' },
    { case: 'a header without ]', text: '[libvirt\nk = v\n', line: 1, reason: "does not end with ']'" },
    { case: 'an empty header', text: '[]\n', line: 1, reason: 'has no name' },
    { case: 'a continuation with nothing to continue', text: '[a]\n  x\n', line: 2, reason: 'continuation line' },
    { case: 'a line without a separator', text: '[a]\nk = v\njust-a-password\n', line: 3, reason: "neither '[section]'" },
    { case: 'an empty option name', text: '[a]\n= v\n', line: 2, reason: 'empty name' },
  ])('parseOsloIni: $case is an error at its line', ({ text, line, reason }) => {
    const result = parseOsloIni(text);
    expect(result).toMatchObject({ ok: false, line });
    expect(result.ok ? '' : result.reason).toContain(reason);
  });

  it('parseOsloIni: an error never quotes the line (it may hold a secret)', () => {
    const result = parseOsloIni('[placement]\npassword = ok\nTopSecretPassword\n');
    expect(JSON.stringify(result)).not.toContain('TopSecretPassword');
  });

  it('parseOsloIni: records the line of each key', () => {
    const result = parseOsloIni('# c\n[a]\n\nk = v\n');
    expect(result.ok && result.sections.get('a')?.get('k')).toEqual({ value: 'v', line: 4 });
  });
});
