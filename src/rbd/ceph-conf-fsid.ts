import { readFile } from 'node:fs/promises';
import { FerryError } from '../errors/ferry-error.js';

/** A Ceph fsid: a UUID. Ceph prints it lowercase; ferry normalises to that. */
export const FSID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CephConfFsid {
  readonly fsid: string;
  /** The section it came from (`global`, `client`, `client.glance`). */
  readonly section: string;
  readonly line: number;
}

/**
 * Finds `fsid` in a ceph.conf text the way a Ceph client resolves options: `[client.<user>]` over `[client]` over
 * `[global]`, the last occurrence within a section winning. Comments (`#`, `;`) are ignored. Returns undefined when
 * no section the client reads sets it; throws FERRY_INVALID_CONFIG when it is set but is not a UUID.
 */
export function fsidFromCephConf(text: string, user: string | undefined, confFile = 'ceph.conf'): CephConfFsid | undefined {
  const wanted = ['global', 'client', ...(user === undefined ? [] : [`client.${user}`])];
  const found = new Map<string, { value: string; line: number }>();
  let section = '';
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const line = rawLine.replace(/[#;].*$/, '').trim();
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header?.[1] !== undefined) {
      section = header[1];
      return;
    }
    const option = /^fsid\s*=\s*(\S*)$/.exec(line);
    if (option?.[1] !== undefined && wanted.includes(section)) found.set(section, { value: option[1], line: index + 1 });
  });
  const winner = [...wanted].reverse().find((name) => found.has(name));
  const entry = winner === undefined ? undefined : found.get(winner);
  if (winner === undefined || entry === undefined) return undefined;
  if (!FSID_PATTERN.test(entry.value)) {
    throw new FerryError(
      'FERRY_INVALID_CONFIG',
      `${confFile} line ${entry.line}: fsid '${entry.value}' in [${winner}] is not a UUID`,
      'Fix the fsid in the ceph.conf (compare with `ceph fsid` on a node of that cluster), or pass --fsid',
      { confFile, section: winner, line: entry.line },
    );
  }
  return { fsid: entry.value.toLowerCase(), section: winner, line: entry.line };
}

/** Reads `confFile` and returns its fsid (see fsidFromCephConf); an unreadable file is FERRY_INVALID_CONFIG. */
export async function readCephConfFsid(confFile: string, user?: string): Promise<CephConfFsid | undefined> {
  let text: string;
  try {
    text = await readFile(confFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FerryError(
      'FERRY_INVALID_CONFIG',
      `cannot read the Ceph config ${confFile}: ${code ?? String(error)}`,
      'Check the path given by --ceph-conf or nova.conf [libvirt] images_rbd_ceph_conf, and that ferry may read it',
      { confFile, errorCode: code },
      { cause: error },
    );
  }
  return fsidFromCephConf(text, user, confFile);
}
