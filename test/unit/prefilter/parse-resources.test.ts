import { describe, expect, it } from 'vitest';
import { parseResources } from '../../../src/prefilter/parse-resources.js';

describe('parseResources', () => {
  it.each([
    { text: 'VCPU:1', expected: [{ resourceClass: 'VCPU', amount: 1 }] },
    { text: 'VCPU:1,MEMORY_MB:512,DISK_GB:1', expected: [
      { resourceClass: 'VCPU', amount: 1 }, { resourceClass: 'MEMORY_MB', amount: 512 }, { resourceClass: 'DISK_GB', amount: 1 }] },
    { text: 'CUSTOM_IMG_SLOT:4', expected: [{ resourceClass: 'CUSTOM_IMG_SLOT', amount: 4 }] },
  ])('parseResources($text)', ({ text, expected }) => {
    expect(parseResources(text)).toEqual(expected);
  });

  it.each([
    { text: '', why: 'must be like' },
    { text: 'vcpu:1', why: 'must be like' },
    { text: 'VCPU:0', why: 'must be like' },
    { text: 'VCPU:1, MEMORY_MB:512', why: 'must be like' },
    { text: 'VCPU:1,,MEMORY_MB:512', why: 'must be like' },
    { text: 'VCPU', why: 'must be like' },
    { text: 'VCPU:1.5', why: 'must be like' },
    { text: 'VCPU:99999999999999999999', why: 'not a usable amount' },
    { text: 'VCPU:1,VCPU:2', why: 'names VCPU twice' },
  ])('parseResources($text) → FERRY_INVALID_OPTION ($why)', ({ text, why }) => {
    expect(() => parseResources(text, '--resources')).toThrow(expect.objectContaining({
      code: 'FERRY_INVALID_OPTION', message: expect.stringContaining(why) as unknown,
    }));
  });
});
