import type { EnsureResult } from '../../copy/ensure-result.js';
import type { TextStyle } from '../output/text-style.js';

export function renderEnsure(result: EnsureResult, style: TextStyle): string {
  const how = result.copied
    ? `copied to ${result.store} in ${(result.elapsedMs / 1000).toFixed(1)} s`
    : result.joined ? `copied to ${result.store} by another import (waited ${(result.elapsedMs / 1000).toFixed(1)} s)`
      : `already clonable in the local cluster`;
  const { target } = result;
  return [
    `${style.good('✔')} image ${style.bold(result.imageId)} ${how}`,
    `  clone source  ${style.bold(`${target.pool}/${target.image}@${target.snapshot}`)}  (cluster ${target.fsid})`,
    `  location      ${target.url}`,
    `  ${style.dim(`${result.why}; ${plural(result.imageReads, 'image read')}, ${plural(result.importRequests, 'import request')}`)}`,
    `  ${style.dim(`rbd clone ${target.pool}/${target.image}@${target.snapshot} <pool>/<disk>`)}`,
  ].join('\n');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
