// Every package the lock installs runs on the oldest Node ferry supports (package.json's engines, the README's Node
// 20.19): npm only warns (EBADENGINE) on a dependency that wants a newer Node, and the checkout's tests run on the
// machine's Node 20. Seen: npm-run-all2 9 wants Node ^22.22.2; npm installed it on Node 20 with a warning.
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/** A package-lock.json entry (lockfile v3: engines as an object of ranges). */
interface LockEntry { readonly engines?: Readonly<Record<string, string>> }

const ours = (JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node;
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };

/** The packages whose engines.node does not admit `node`, as "path wants range". */
function tooNew(packages: Record<string, LockEntry>, node: string): string[] {
  return Object.entries(packages).flatMap(([path, entry]) => {
    const range = entry.engines?.node;
    return path !== '' && range !== undefined && !semver.satisfies(node, range) ? [`${path} wants Node ${range}`] : [];
  });
}

describe('the dependencies\' Node', () => {
  const oldest = semver.minVersion(ours)?.version ?? '';

  it('package.json names the oldest Node it supports', () => {
    expect(oldest).toBe('20.19.0');
  });

  it('every package in package-lock.json runs on it (pin an older major, or raise engines and the README together)', () => {
    expect(tooNew(lock.packages, oldest)).toEqual([]);
  });

  it.each([
    [{ 'node_modules/a': { engines: { node: '^22.22.2 || ^24.15.0 || >=26.0.0' } } }, ['node_modules/a wants Node ^22.22.2 || ^24.15.0 || >=26.0.0']],
    [{ 'node_modules/b': { engines: { node: '^20.5.0 || >=22.0.0' } } }, []],
    [{ 'node_modules/c': { engines: { npm: '>= 10' } } }, []],
    [{ '': { engines: { node: '>=99' } } }, []],
  ])('%j → %j', (packages, found) => {
    expect(tooNew(packages, '20.19.0')).toEqual(found);
  });
});
