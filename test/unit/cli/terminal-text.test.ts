import { Writable } from 'node:stream';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { ProgressSink } from '../../../src/cli/command-spec.js';
import { terminalSafe, terminalSink, terminalText } from '../../../src/cli/output/terminal-text.js';
import { createLogger } from '../../../src/logging/logger.js';
import { escapeControlsInJson } from '../../../src/logging/terminal-controls.js';
import { GLANCE_ROOT, loadExchange, replay } from '../../helpers/fixtures.js';
import { IMAGE_ID, imageBody } from '../../helpers/image-body.js';
import { runFerry } from '../../helpers/run-ferry.js';
import { runWith } from '../prewarm/cli-harness.js';
import { imageId, scriptedImages } from '../prewarm/scripted-images.js';

// Strings from Glance reach the terminal only as text: a window title (OSC 0 … BEL), a screen clear (CSI 2J), the
// one-character C1 CSI, a carriage return that overwrites the line, a right-to-left override that reorders it.
const HOSTILE = 'evil\u001b]0;pwned\u0007\u001b[2J\u009b31mred\rOK\u202eexe.txt';
const SHOWN = 'evil\\x1b]0;pwned\\x07\\x1b[2J\\x9b31mred\\rOK\\u202eexe.txt';
/** What must never reach a terminal raw (the line feed aside, which text needs). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const CLOUD = ['--os-token', 'unit-token', '--glance-endpoint', GLANCE_ROOT, '--retries', '0'];

describe('terminalText', () => {
  it.each([
    { text: '\u001b]0;title\u0007', shown: '\\x1b]0;title\\x07', what: 'OSC 0 (window title) … BEL' },
    { text: '\u001b[2J', shown: '\\x1b[2J', what: 'CSI 2J (clear screen)' },
    { text: '\u009b31m', shown: '\\x9b31m', what: 'C1 CSI' },
    { text: 'ok\rEVIL', shown: 'ok\\rEVIL', what: 'carriage return' },
    { text: 'a\nb\tc', shown: 'a\\nb\\tc', what: 'line feed and tab in a value' },
    { text: 'evil\u202etxt.exe', shown: 'evil\\u202etxt.exe', what: 'right-to-left override' },
    { text: '\u2066x\u2069 \u200f \u061c', shown: '\\u2066x\\u2069 \\u200f \\u061c', what: 'isolates and marks' },
    { text: 'x\u007fy\u0000z', shown: 'x\\x7fy\\x00z', what: 'DEL and NUL' },
    { text: 'line\u2028sep', shown: 'line\\u2028sep', what: 'line separator' },
    { text: 'Ubuntu 24.04 — 日本語 🚀 C:\\images', shown: 'Ubuntu 24.04 — 日本語 🚀 C:\\images', what: 'printable text, backslashes kept' },
  ])('terminalText: $what', ({ text, shown }) => {
    expect(terminalText(text)).toBe(shown);
  });

  it('terminalText: keepLineBreaks keeps \\n (a frame of several lines), and only that', () => {
    expect(terminalText('a\u001b[2J\nb\r\n', true)).toBe('a\\x1b[2J\nb\\r\n');
  });

  it('terminalSafe: every string of a report, keys and nested values, maps and sets; numbers and instances as they are', () => {
    const when = new Date(0);
    const report = { name: HOSTILE, stores: ['a\rb'], properties: { 'k\u001b': 'v\u009b' }, size: 3, when,
      seen: new Map([['m\r', 'n\r']]), tags: new Set(['t\r']) };
    expect(terminalSafe(report)).toEqual({ name: SHOWN, stores: ['a\\rb'], properties: { 'k\\x1b': 'v\\x9b' }, size: 3, when,
      seen: new Map([['m\\r', 'n\\r']]), tags: new Set(['t\\r']) });
    expect(terminalSafe(report).when).toBe(when);
  });

  it('terminalSink: live lines keep their line breaks, everything else escaped', () => {
    const seen: string[] = [];
    const inner: ProgressSink = { update: (t) => seen.push(`update ${t}`), log: (t) => seen.push(`log ${t}`), clear: () => seen.push('clear') };
    const sink = terminalSink(inner);
    sink.update(`bar\n  ${HOSTILE} → site-a`);
    sink.log(`failed ${HOSTILE}`);
    sink.clear();
    expect(seen).toEqual([`update bar\n  ${SHOWN} → site-a`, `log failed ${SHOWN}`, 'clear']);
  });
});

describe('ferry status: an image named by someone hostile', () => {
  const LOCK = 'a8860fd2-0000-4000-8000-000000000001';
  function replayImage(times = 1): nock.Scope {
    const tasks = loadExchange('glance', 'image-tasks').body as { tasks: Record<string, unknown>[] };
    const task = { ...tasks.tasks[0], id: LOCK, image_id: IMAGE_ID, status: 'processing', message: `Copied 1 MiB\u001b[1A\u001b[2K${HOSTILE}` };
    return nock(GLANCE_ROOT)
      .get(`/v2/images/${IMAGE_ID}`).times(times).reply(200, { ...imageBody({ lock: LOCK, importing: ['site-b'] }), name: HOSTILE })
      .get(`/v2/images/${IMAGE_ID}/tasks`).times(times).reply(200, { tasks: [task] });
  }

  it('ferry status (text): the name and Glance\'s task message are shown escaped; nothing raw reaches the terminal', async () => {
    const scope = replayImage();
    const run = await runFerry(['status', IMAGE_ID, ...CLOUD]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(`${SHOWN}  ${IMAGE_ID}`);
    expect(run.stdout).toContain(`"Copied 1 MiB\\x1b[1A\\x1b[2K${SHOWN}"`);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(scope.isDone()).toBe(true);
  });

  it('ferry status --json: exact JSON (parses back to the very name) with C1 and bidi written as \\u escapes', async () => {
    const scope = replayImage();
    const run = await runFerry(['status', IMAGE_ID, ...CLOUD, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { name: string }).name).toBe(HOSTILE);
    expect(run.stdout).toContain('"name": "evil\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31mred\\rOK\\u202eexe.txt"');
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(scope.isDone()).toBe(true);
  });

  it('ferry status -f yaml: the same name once parsed, in double quotes with escapes', async () => {
    const scope = replayImage();
    const run = await runFerry(['status', IMAGE_ID, ...CLOUD, '-f', 'yaml']);
    expect(run.code, run.stderr).toBe(0);
    expect((parseYaml(run.stdout) as { name: string }).name).toBe(HOSTILE);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(scope.isDone()).toBe(true);
  });

  it('ferry status -f table: escaped (a table is for people)', async () => {
    const scope = replayImage();
    const run = await runFerry(['status', IMAGE_ID, ...CLOUD, '-f', 'table', '-c', 'name']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(SHOWN.slice(0, 20));
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(scope.isDone()).toBe(true);
  });

  it('ferry status -f value: exact bytes into a pipe (a program reads them), escaped on a terminal', async () => {
    const scope = replayImage(2);
    const piped = await runFerry(['status', IMAGE_ID, ...CLOUD, '-f', 'value', '-c', 'name']);
    const shown = await runFerry(['status', IMAGE_ID, ...CLOUD, '-f', 'value', '-c', 'name'], { stdoutIsTTY: true });
    expect(piped.stdout).toBe(`${HOSTILE}\n`);
    expect(shown.stdout).toBe(`${SHOWN}\n`);
    expect(scope.isDone()).toBe(true);
  });

  it('ferry status: Glance\'s error message on stderr is shown escaped, with its hint and code', async () => {
    const scope = nock(GLANCE_ROOT).get(`/v2/images/${IMAGE_ID}`)
      .reply(500, { message: `boom\u001b]8;;http://evil.example\u0007click\u001b]8;;\u0007\r${HOSTILE}` });
    const run = await runFerry(['status', IMAGE_ID, ...CLOUD]);
    expect(run.code).toBe(17);
    // (serverMessage folds whitespace, the carriage returns among it, into single spaces)
    expect(run.stderr).toContain('boom\\x1b]8;;http://evil.example\\x07click\\x1b]8;;\\x07 evil\\x1b]0;pwned\\x07\\x1b[2J\\x9b31mred OK\\u202eexe.txt');
    expect(run.stderr).toContain('(FERRY_HTTP)');
    expect(run.stderr).not.toMatch(RAW_CONTROL);
    expect(scope.isDone()).toBe(true);
  });
});

describe('other texts from Glance', () => {
  it('ferry stores (text): a store description is shown escaped', async () => {
    const exchange = loadExchange('glance', 'info-stores-detail');
    const body = structuredClone(exchange.body) as { stores: { description?: string }[] };
    body.stores[0]!.description = HOSTILE;
    const scope = replay(nock(GLANCE_ROOT), { ...exchange, body });
    const run = await runFerry(['stores', '--store', 'site-b', '--os-token', 'unit-token', '--glance-endpoint', GLANCE_ROOT]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(SHOWN);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(scope.isDone()).toBe(true);
  });

  it('ferry prewarm off a TTY: the stderr line of each copy shows the image name escaped', async () => {
    const A = imageId(1);
    const glance = scriptedImages({ [A]: { name: HOSTILE, reads: [{ stores: ['central'] }, { stores: ['central'], lock: 'a8860fd2-0000-4000-8000-000000000001', importing: ['site-a'] },
      { stores: ['central', 'site-a'], importing: [], failed: [] }] } });
    const run = await runWith(['prewarm', A, '--store', 'site-a'], glance);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`^copied {6}${SHOWN.replace(/[\\[\]().*+?^$|]/g, '\\$&')} \\(00000000\\) → site-a in`, 'm'));
    expect(run.stderr).not.toMatch(RAW_CONTROL);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
  });
});

describe('ferry prewarm on a TTY', () => {
  it('the live area and the lines that stay show the name escaped (log-update\'s own cursor controls aside)', async () => {
    const A = imageId(1);
    const glance = scriptedImages({ [A]: { name: HOSTILE, reads: [{ stores: ['central'] }, { stores: ['central'], lock: 'a8860fd2-0000-4000-8000-000000000001', importing: ['broken'] },
      { stores: ['central'], importing: [], failed: ['broken'] }] } });
    const run = await runWith(['prewarm', A, '--store', 'broken'], glance, { tty: true });
    expect(run.code).toBe(50);
    expect(run.stderr).toContain(`failed      ${SHOWN}`);
    for (const raw of ['\u0007', '\u009b', '\r', '\u202e', '\u001b]0;']) expect(run.stderr).not.toContain(raw);
  });
});

describe('log lines', () => {
  function lines(journald: boolean): string[] {
    const out: string[] = [];
    const destination = new Writable({ write(chunk: Buffer, _encoding, done) { out.push(chunk.toString()); done(); } });
    createLogger({ level: 'info', destination, journald }).warn({ image: HOSTILE }, `copy of ${HOSTILE} failed`);
    return out;
  }

  it.each([false, true])('pino line (journald %s): C1 and bidi escaped as \\u, the same record once parsed', (journald) => {
    const [line] = lines(journald);
    expect(line).not.toMatch(RAW_CONTROL);
    const record = JSON.parse((line ?? '').replace(/^<\d>/, '')) as { image: string; msg: string };
    expect(record.image).toBe(HOSTILE);
    expect(record.msg).toBe(`copy of ${HOSTILE} failed`);
  });

  it('escapeControlsInJson: only DEL, C1, bidi and separators; the layout\'s line feeds stay', () => {
    expect(escapeControlsInJson('{\n  "a": "x\u009by\u202ez\u007f"\n}')).toBe('{\n  "a": "x\\u009by\\u202ez\\u007f"\n}');
  });
});
