/** An RBD image left at a copy's target (a killed writer's partial image): where it is and how to reach it. */
export interface LeftoverImage {
  readonly pool: string;
  readonly image: string;
  readonly cephConf: string;
  readonly user: string | undefined;
  /** Its creator was killed before it wrote the header: it cannot be opened, only removed (`rbd rm`). */
  readonly halfCreated: boolean;
}
