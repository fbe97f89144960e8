import type { EnsureResult } from '../../copy/ensure-result.js';
import type { TextStyle } from '../output/text-style.js';

export function renderEnsure(result: EnsureResult, style: TextStyle): string {
  const how = result.copied
    ? `copied to ${result.store} in ${(result.elapsedMs / 1000).toFixed(1)} s`
    : result.joined ? `copied to ${result.store} by another import (waited ${(result.elapsedMs / 1000).toFixed(1)} s)`
      : `already in ${result.store}`;
  const { target } = result;
  return [
    `${style.good('✔')} image ${style.bold(result.imageId)} ${how}`,
    `  clone source  ${style.bold(`${target.pool}/${target.image}@${target.snapshot}`)}  (cluster ${target.fsid})`,
    `  location      ${target.url}`,
    `  ${style.dim(`${result.why}; ${result.imageReads} image reads, ${result.importRequests} import requests`)}`,
    `  ${style.dim(`rbd clone ${target.pool}/${target.image}@${target.snapshot} <pool>/<disk>`)}`,
  ].join('\n');
}
