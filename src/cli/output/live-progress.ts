import { createLogUpdate } from 'log-update';
import type { ProgressSink } from '../command-spec.js';

/** A live status area on stderr when it is a TTY; nothing otherwise (stdout stays clean for the report). */
export function liveProgress(stream: NodeJS.WriteStream, enabled: boolean): ProgressSink {
  if (!enabled) return { update: () => undefined, log: () => undefined, clear: () => undefined };
  const area = createLogUpdate(stream);
  let current = '';
  return {
    update(text) {
      current = text;
      area(text);
    },
    log(text) {
      area.clear();
      stream.write(`${text}\n`);
      if (current !== '') area(current);
    },
    clear() {
      current = '';
      area.clear();
    },
  };
}
