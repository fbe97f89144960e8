// Types of scripts/integration-lanes.mjs (a plain .mjs: scripts/run-integration.mjs runs it without a build).
export interface Lane {
  readonly name: string;
  readonly files: string[];
}
export declare const ALONE: readonly string[];
export declare const GROUPS: Readonly<Record<'deb' | 'site-c', readonly string[]>>;
export declare const SECONDS: Readonly<Record<string, number>>;
export declare const DEFAULT_SECONDS: number;
export declare function planLanes(files: readonly string[], shared: number): { lanes: Lane[]; alone: string[] };
