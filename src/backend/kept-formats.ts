import { IMAGE_FORMATS } from './image-formats.js';
import type { BackendConfig } from './resolve-backend-config.js';
import { selectBackend } from './select-backend.js';

/**
 * The formats this host keeps as-is, each with the backend that keeps it: every mapped format, plus every unmapped
 * format that images_type stores without conversion (raw, iso, ami, aki, ari on an rbd host). This is the
 * `ReadonlyMap<format, backend>` the traits module reads; formats missing from it are converted or refused.
 */
export function keptFormats(config: BackendConfig): ReadonlyMap<string, string> {
  const kept = new Map<string, string>();
  for (const format of IMAGE_FORMATS) {
    const choice = selectBackend(format, config);
    if (!choice.converted) kept.set(format, choice.backend);
  }
  return kept;
}
