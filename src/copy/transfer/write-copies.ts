import { LibrbdUnavailableError, prepareLibrbdCopy, type PreparedLibrbdCopy } from '../../rbd/librbd-copy.js';
import type { Claimed, StepEnd, StoreCopyEnvironment } from './store-copy-plan.js';
import { writeWithCli } from './write-with-cli.js';
import { writeWithLibrbd } from './write-with-librbd.js';

/**
 * The bytes go through librbd unless FERRY_RBD_DATA_PATH=cli (diagnosis) or this process found python3-rbd missing
 * (warned once): then through the rbd CLI pipe (docs/copy.md, "The data path").
 */
let librbdMissing = false;
const librbdWanted = (): boolean => !librbdMissing && process.env.FERRY_RBD_DATA_PATH !== 'cli';

/** The librbd process, started while the stores are claimed (its python and binding load beside the rbd commands). */
export function prepareCopyWriter(): PreparedLibrbdCopy | undefined {
  return librbdWanted() ? prepareLibrbdCopy() : undefined;
}

/**
 * Write every claimed store of one image from its one source, prove each copy from its stream, mark, rename and
 * register it: through librbd (one process reads and hashes the source once for all of them), else through the rbd
 * CLI (one pipe per store). Ends in the order of `claimed`.
 */
export async function writeCopies(env: StoreCopyEnvironment, claimed: readonly Claimed[], prepared: PreparedLibrbdCopy | undefined): Promise<StepEnd[]> {
  if (prepared !== undefined && librbdWanted()) {
    try {
      return await writeWithLibrbd(env, claimed, prepared);
    } catch (error) {
      if (!(error instanceof LibrbdUnavailableError)) throw error;
      librbdMissing = true;
      env.logger.warn({ why: error.message }, 'librbd (python3-rbd) is not available: the direct transfer copies through the rbd CLI (install python3-rbd)');
    }
  }
  return Promise.all(claimed.map((claim) => writeWithCli(env, claim)));
}
