import { randomUUID } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { FerryError } from '../../errors/ferry-error.js';

/**
 * A one-shot's metrics for node_exporter's textfile collector (`--collector.textfile.directory`): written beside the
 * file and renamed over it, so the collector never reads half a file. The collector reads `*.prom` only. The
 * temporary name is random and created exclusively ('wx'): in a directory others may write, a file or symlink planted
 * under a guessable name would otherwise be written through.
 */
export function writeMetricsFile(file: string, text: string): void {
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: 0o644, flag: 'wx' });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new FerryError('FERRY_INVALID_OPTION', `cannot write the metrics file ${file}: ${(error as Error).message}`,
      'Check --metrics-file: a writable directory (node_exporter\'s --collector.textfile.directory), e.g. /var/lib/prometheus/node-exporter/ferry-evict-site-b.prom.',
      { option: 'metrics-file', file }, { cause: error });
  }
}

/** --metrics-file must name a `.prom` file: the textfile collector ignores every other name. Checked before any request. */
export function checkMetricsFileName(file: string): void {
  if (!file.endsWith('.prom')) {
    throw new FerryError('FERRY_INVALID_OPTION', `--metrics-file must end in .prom (node_exporter's textfile collector reads only *.prom), got '${file}'`,
      'Pass e.g. --metrics-file /var/lib/prometheus/node-exporter/ferry-evict-site-b.prom.', { option: 'metrics-file' });
  }
}
