// Issue 37: docs named error codes (FERRY_NOT_RAW, FERRY_UNKNOWN_STORE) and flags that do not exist. This test reads
// every page of docs/ and the README and fails on:
// - a FERRY_* name that no code of the project holds (src/, scripts/, packaging/, debian/, integrations/, bench/, the
//   integration tests and their helpers, package.json, .ci/): an error code, an environment variable or a metric;
// - a --flag written after `ferry CMD` (in a code block or an inline code span, up to a pipe, `;`, `&&` or the span's
//   end) that CMD does not take (its own options, the cloud options unless it talks to no cloud, output and logging).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../src/cli/command-registry.js';
import { commandOptions } from '../../../src/cli/global-options.js';

const CODE_DIRS = ['src', 'scripts', 'packaging', 'debian', 'integrations', 'bench', 'test/integration', 'test/helpers', '.ci'];
const CODE_FILES = ['package.json'];
const TEXT = new Set(['.ts', '.mts', '.mjs', '.js', '.py', '.sh', '', '.service', '.socket', '.timer', '.yml', '.yaml', '.json', '.j2',
  '.conf', '.default', '.postinst', '.prerm', '.postrm', '.rules', '.patch', '.Containerfile', '.txt', '.install', '.links', '.d.mts']);
/** Flags every command takes besides its options (run-cli.ts). */
const RUNNER_FLAGS = ['help'];

function files(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir, { recursive: true }).map(String).map((path) => join(dir, path))
    .filter((path) => !path.includes('node_modules') && statSync(path).isFile() && keep(path));
}

const docs = [...files('docs', (path) => path.endsWith('.md')), 'README.md'];
const code = [...CODE_DIRS.flatMap((dir) => files(dir, (path) => TEXT.has(extname(path)) || !path.includes('.'))), ...CODE_FILES]
  .map((path) => readFileSync(path, 'utf8')).join('\n');
const knownNames = new Set(code.match(/FERRY_[A-Z0-9_]+/g) ?? []);
/** Names the code builds (`FERRY_DEVCLOUD_${name}`, `FERRY_DEVCLOUD_$name`): a documented name with such a prefix exists. */
const builtPrefixes = [...code.matchAll(/(FERRY_[A-Z0-9_]*_)\$/g)].map((match) => match[1]!);
const known = (name: string): boolean => knownNames.has(name) || builtPrefixes.some((prefix) => name.startsWith(prefix));

/**
 * The FERRY_* names a page writes: `FERRY_COPY_*` and `FERRY_DEVCLOUD_{ADMIN,DEMO}` (a family: some name of the code
 * starts so) and `<FERRY_CODE>` (a placeholder) are read as what they are.
 */
function unknownNames(text: string): string[] {
  return [...text.matchAll(/(<?)(FERRY_[A-Z0-9_]*[A-Z0-9])(_?\*|_\{)?/g)].filter(([, placeholder, name, family]) => placeholder === ''
    && (family === undefined ? !known(name!) : ![...knownNames].some((held) => held.startsWith(name!)))).map((match) => match[2]!);
}

/** Each code span or code-block line of a page, with its line number. */
function codeSpans(text: string): { line: number; span: string }[] {
  const spans: { line: number; span: string }[] = [];
  let inBlock = false;
  text.split('\n').forEach((line, index) => {
    if (line.trimStart().startsWith('```')) {
      inBlock = !inBlock;
      return;
    }
    if (inBlock) spans.push({ line: index + 1, span: line });
    else for (const match of line.matchAll(/`([^`]+)`/g)) spans.push({ line: index + 1, span: match[1]! });
  });
  return spans;
}

/** `ferry CMD … --flag …` in a span: the command's name (two words first) and the flags after it, up to a pipe or `;`. */
function ferryCalls(span: string): { command: string; flags: string[] }[] {
  const calls: { command: string; flags: string[] }[] = [];
  for (const match of span.matchAll(/(?:^|[\s($])(?:bin\/|\/usr\/bin\/)?ferry ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g)) {
    const [first, second] = [match[1]!, match[2]];
    const command = second !== undefined && `${first} ${second}` in COMMANDS ? `${first} ${second}` : first;
    if (!(command in COMMANDS)) continue;
    // Up to a pipe, `;`, `&&`, `)`, or `: ` (a quoted message: `ferry traits talks to no cloud: --os-cloud …`).
    const rest = span.slice((match.index ?? 0) + match[0].length).split(/\||;|&&|\)|: /)[0] ?? '';
    calls.push({ command, flags: [...rest.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((flag) => flag[1]!) });
  }
  return calls;
}

describe('docs name only what exists', () => {
  it('every FERRY_* name in docs/ and the README is held by the project\'s code', () => {
    const unknown = docs.flatMap((path) => unknownNames(readFileSync(path, 'utf8')).map((name) => `${path}: ${name}`));
    expect([...new Set(unknown)]).toEqual([]);
  });

  it('every --flag written after `ferry CMD` in docs/ and the README is one CMD takes', async () => {
    const flagsOf = new Map<string, Set<string>>();
    for (const [name, entry] of Object.entries(COMMANDS)) {
      flagsOf.set(name, new Set([...commandOptions(await entry.load()).map((option) => option.name), ...RUNNER_FLAGS]));
    }
    const unknown: string[] = [];
    for (const path of docs) {
      for (const { line, span } of codeSpans(readFileSync(path, 'utf8'))) {
        for (const { command, flags } of ferryCalls(span)) {
          for (const flag of flags) if (!flagsOf.get(command)!.has(flag)) unknown.push(`${path}:${line}: ferry ${command} --${flag}`);
        }
      }
    }
    expect(unknown).toEqual([]);
  });

  it('the checks can fail: a made-up code and a made-up flag are caught', () => {
    expect(unknownNames('nova fails on `FERRY_NOT_RAW` and FERRY_UNKNOWN_STORE, not on FERRY_COPY_FAILED')).toEqual(['FERRY_NOT_RAW', 'FERRY_UNKNOWN_STORE']);
    expect(unknownNames('every FERRY_COPY_* code, `<FERRY_CODE>`, FERRY_DEVCLOUD_GLANCE_PORT')).toEqual([]);
    expect(unknownNames('FERRY_NOPE_*')).toEqual(['FERRY_NOPE']);
    expect(ferryCalls('ferry ensure IMAGE --store site-b --no-such-flag | jq --raw-output')).toEqual([{ command: 'ensure', flags: ['store', 'no-such-flag'] }]);
    expect(ferryCalls('sudo bin/ferry agent status --socket /run/ferry/agent.sock')).toEqual([{ command: 'agent status', flags: ['socket'] }]);
  });
});
