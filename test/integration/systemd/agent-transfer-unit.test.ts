import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAgent } from '../../../src/agent/agent-client.js';
import { ensureJsonSchema } from '../../../src/contract/ensure-document.js';
import { devcloud, markReached } from '../../helpers/devcloud.js';
import { deleteImage, readImage, waitUnlocked } from '../../helpers/glance-admin.js';
import { DIGEST_MS, md5, md5OfSnapshot, MiB, sparseBytes, uploadBytes } from '../copy/rbd-transfer-helpers.js';
import { INTEGRATION_TEST_MS } from '../../helpers/spawn-budget.js';
import {
  cannotRunSystemd, cephClientInside, COMMAND_MS, ctl, downIfStartedHere, initPid, insidePath, installDropIn, journalCursorNow, removeDropIn, show, SYSTEMD_DOWN_MS,
  SYSTEMD_UP_MS, systemdUp, UNIT_JOB_MS,
} from './private-systemd.js';

// ferry-agent.service's sandbox (seccomp filter, PrivateUsers=, ProcSubset=, no capabilities, MemoryMax=) with the
// direct transfer's children in it: the agent is given `--transfer rbd` (a test drop-in's environment file, as an
// operator's /etc/default/ferry-agent would), and an ensure copies a site-a image into site-b through the librbd
// python3 child (and `rbd`/`ceph` for the checks around it). The settings of the unit are only proven by this running.

const UNIT = 'ferry-agent.service';
const SOCKET_UNIT = 'ferry-agent.socket';
const DROP_IN = '/etc/systemd/system/ferry-agent.service.d/zz-test-transfer.conf';
const reason = cannotRunSystemd();

let startedSystemd = false;
let journalCursor = '';
let imageId = '';
const systemctl = (...args: string[]) => ctl(['systemctl', ...args]);
const journal = (): string => ctl(['journalctl', '--no-pager', '-o', 'cat', '-u', UNIT, `--after-cursor=${journalCursor}`]).stdout;

/** What the test waits for over HTTP: the upload of 32 MiB and the agent's copy (its whole limit before spawns counted). */
const UPLOAD_AND_COPY_MS = 300_000;

describe.skipIf(reason !== '')(`ferry-agent.service: the direct transfer's librbd child in the unit's sandbox${reason === '' ? '' : ` (SKIPPED: ${reason})`}`, () => {
  beforeAll(() => {
    startedSystemd = initPid() === undefined;
    systemdUp();
    const facts = devcloud();
    const dir = join(facts.dir, 'systemd');
    mkdirSync(dir, { recursive: true });
    // The dev cloud's glance keyrings are readable by all (0644): no credential is needed for them here, only copies
    // where the unit can read them (cephClientInside). The flags are those of test/integration/copy/rbd-transfer's
    // command line.
    const env = join(dir, 'transfer.env');
    writeFileSync(env, `FERRY_AGENT_ARGS=--log-level info --transfer rbd --ceph-conf ${cephClientInside('site-b', 'glance', 'transfer-site-b')} `
      + `--rbd-user glance --source-ceph-conf site-a=${cephClientInside('site-a', 'glance', 'transfer-site-a')}\n`);
    const dropIn = join(dir, 'zz-test-transfer.conf');
    writeFileSync(dropIn, `[Service]\nEnvironmentFile=${env}\n`);
    installDropIn(dropIn, DROP_IN);
    journalCursor = journalCursorNow();
  }, SYSTEMD_UP_MS + 3 * COMMAND_MS);

  afterAll(async () => {
    removeDropIn(DROP_IN, [UNIT, SOCKET_UNIT]);
    downIfStartedHere(startedSystemd);
    if (imageId !== '') {
      await waitUnlocked(imageId);
      await deleteImage(imageId);
    }
  }, INTEGRATION_TEST_MS + UNIT_JOB_MS + 2 * COMMAND_MS + SYSTEMD_DOWN_MS);

  it('POST /v1/ensure with --transfer rbd: the librbd child copies site-a → site-b inside the sandbox, the bytes verified', async () => {
    const start = systemctl('start', SOCKET_UNIT, UNIT);
    expect(start.code, start.stderr).toBe(0);
    markReached('systemd');
    const bytes = sparseBytes(32 * MiB, 4 * MiB);
    imageId = await uploadBytes('it-systemd-transfer', bytes);
    const answer = await callAgent(insidePath('/run/ferry/agent.sock'), { method: 'POST', path: '/v1/ensure', body: { image: imageId } });
    expect(answer.status, `${JSON.stringify(answer.body)}\n${journal()}`).toBe(200);
    expect(ensureJsonSchema.parse(answer.body)).toMatchObject({ image: imageId, store: 'site-b', copied: true, transfer: 'rbd', import_requests: 0 });
    // Through librbd, not the rbd CLI fallback (which the agent would take, with this warning, if python3 could not run
    // the copy in the sandbox).
    expect(journal()).not.toContain('librbd (python3-rbd) is not available');
    expect(md5OfSnapshot('site-b', imageId)).toBe(md5(bytes));
    expect((await readImage(imageId)).checksum).toBe(md5(bytes));
    // Still the sandboxed agent: the filter, no capabilities.
    const status = ctl(['cat', `/proc/${show(UNIT, ['MainPID']).MainPID}/status`]).stdout;
    expect(/^Seccomp:\s+(\d)/m.exec(status)?.[1]).toBe('2');
    expect(/^CapBnd:\s+(\w+)/m.exec(status)?.[1]).toBe('0000000000000000');
    rmSync(join(devcloud().dir, 'systemd', 'transfer.env'), { force: true });
  }, UPLOAD_AND_COPY_MS + UNIT_JOB_MS + 4 * COMMAND_MS + DIGEST_MS);
});
