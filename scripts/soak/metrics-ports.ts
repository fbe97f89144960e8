// Which TCP ports the soak's agents and its sync watch serve /metrics on. Two soaks on one machine run against two dev
// clouds, each with its own port range (docs/devcloud.md: FERRY_DEVCLOUD_*_PORT): the default is taken from the dev
// cloud's Keystone port (+10 on), so that they never collide (a fixed 24010 did). Pure.

/** The sync watch's offset from the first port: the agents take the ports before it. */
const SYNC_OFFSET = 9;

export function metricsPortsOf(keystoneUrl: string, nodes: number, first?: number): { agents: number[]; sync: number } {
  if (nodes > SYNC_OFFSET) throw new Error(`the soak runs at most 9 nodes (their metrics ports come before the sync watch's), asked for ${nodes}`);
  const base = first ?? Number(new URL(keystoneUrl).port) + 10;
  return { agents: Array.from({ length: nodes }, (_, index) => base + index), sync: base + SYNC_OFFSET };
}
