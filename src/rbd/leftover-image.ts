/** An RBD image left at a copy's target (a killed writer's partial image): where it is and how to reach it. */
export interface LeftoverImage {
  readonly pool: string;
  readonly image: string;
  readonly cephConf: string;
  readonly user: string | undefined;
  /** Its creator was killed before it wrote the header: it cannot be opened, only removed (`rbd rm`). */
  readonly halfCreated: boolean;
}

/** `rbd -c CONF [--id USER]`: the command a hint tells the operator to run, against the cluster ferry used. */
export function rbdCommandLine(confFile: string, user: string | undefined): string {
  return `rbd -c ${confFile}${user ? ` --id ${user}` : ''}`;
}

/** A half-created image in a message and its fix, worded once for the Glance copy and the direct transfer. */
export const HALF_CREATED_WHY = '(its name is taken, but it cannot be opened: whoever created it was killed before it was written)';

export function halfCreatedFix(rbd: string, pool: string, image: string): string {
  return `It holds no data and nothing can be cloned from it: remove it (${rbd} rm ${pool}/${image}), then run ferry again.`;
}
