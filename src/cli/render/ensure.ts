import type { BackendChoice } from '../../backend/backend-choice.js';
import type { EnsureNotNeeded, EnsureResult } from '../../copy/ensure-result.js';
import type { TextStyle } from '../output/text-style.js';

/** What the text needs of an ensure outcome (an EnsureOutcome is one; so is the agent's document read back). */
export type EnsureView = Pick<EnsureResult, 'needed' | 'imageId' | 'store' | 'copied' | 'joined' | 'elapsedMs' | 'target' | 'why' | 'imageReads' | 'importRequests'>
  | (Pick<EnsureNotNeeded, 'needed' | 'imageId'> & { readonly backend: Pick<BackendChoice, 'reason'> & { readonly backend: string } });

export function renderEnsure(result: EnsureView, style: TextStyle): string {
  if (!result.needed) {
    return `${style.good('✔')} image ${style.bold(result.imageId)} needs no Ceph copy on this host: its backend is ${result.backend.backend}`
      + `\n  ${style.dim(result.backend.reason)}`;
  }
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
