import { FerryError } from '../../errors/ferry-error.js';
import { parseSyncPolicy } from '../../fleet/parse-sync-policy.js';
import type { SyncPolicy } from '../../fleet/sync-policy.js';
import type { CommandContext } from '../command-spec.js';

/** Read and parse the policy file named by --policy (sync, evict); an unreadable file is FERRY_INVALID_CONFIG too. */
export function readPolicyFile(ctx: Pick<CommandContext, 'readFile'>, file: string): SyncPolicy {
  let source: string;
  try {
    source = ctx.readFile(file);
  } catch (error) {
    throw new FerryError('FERRY_INVALID_CONFIG', `cannot read the policy file ${file}: ${(error as Error).message}`,
      'Check the path given to --policy.', { file }, { cause: error });
  }
  return parseSyncPolicy(source, file);
}
