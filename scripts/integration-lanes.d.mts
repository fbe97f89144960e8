// Types of scripts/integration-lanes.mjs (a plain .mjs: scripts/run-integration.mjs runs it without a build).
export interface Lane {
  readonly name: string;
  readonly files: string[];
}
export declare const ALONE: readonly string[];
export declare const FIRST_CLOUD: readonly string[];
export declare const OWN_CLOUD: readonly string[];
export declare const GROUPS: Readonly<Record<'deb' | 'site-c', readonly string[]>>;
export declare const AFTER_LANES: Readonly<Record<string, readonly string[]>>;
/** A file that starts once these lanes have ended. */
export interface After {
  readonly file: string;
  readonly lanes: string[];
}
export declare const SECONDS: Readonly<Record<string, number>>;
export declare const DEFAULT_SECONDS: number;
export declare function planLanes(files: readonly string[], shared: number, options?: { readonly clouds?: number }): {
  lanes: Lane[];
  second: string[];
  own: string[];
  after: After[];
  alone: string[];
};
export declare function secondCloudPorts(base: number): Record<string, string>;
export type LaneSettings =
  | { readonly shared: number; readonly clouds: 1 | 2 | 3; readonly secondPortBase: number; readonly problem?: undefined }
  | { readonly problem: string };
export declare function readLaneSettings(env: Readonly<Record<string, string | undefined>>): LaneSettings;
