import type { CopyStatus } from '../../copy/copy-status.js';
import type { TextStyle } from '../output/text-style.js';

export function renderStatus({ image, lock }: CopyStatus, style: TextStyle): string {
  const list = (values: readonly string[]): string => (values.length === 0 ? style.dim('none') : values.join(', '));
  const lines = [
    `${style.bold(image.name ?? '(no name)')}  ${image.id}`,
    `  status      ${image.status}, disk_format ${image.diskFormat ?? '(unset)'}, ${image.size ?? '?'} bytes`,
    `  stores      ${image.storesVisible ? list(image.stores) : style.warn('hidden by Glance policy')}`,
    `  importing   ${list(image.importingTo)}`,
    `  failed      ${image.failedImport.length ? style.bad(image.failedImport.join(', ')) : style.dim('none')}`,
  ];
  if (lock === undefined) {
    lines.push(`  lock        ${style.dim('none')}`);
  } else {
    const age = lock.ageMs === undefined ? 'age unknown (task not visible to this project)' : `started ${Math.round(lock.ageMs / 1000)} s ago`;
    const moved = lock.sinceUpdateMs === undefined ? '' : `, last moved ${Math.round(lock.sinceUpdateMs / 1000)} s ago`;
    const task = lock.task ? `, ${lock.task.status}${lock.task.message ? ` "${lock.task.message}"` : ''}` : '';
    lines.push(`  lock        task ${lock.taskId} (${age}${moved}${task})`);
  }
  for (const location of image.locations ?? []) {
    lines.push(`  location    ${style.dim(location.store ?? '?')} ${location.url}`);
  }
  if (image.locations === undefined) lines.push(`  locations   ${style.dim('hidden (show_multiple_locations is off)')}`);
  return lines.join('\n');
}
