import type { FsidSource } from '../rbd/resolve-local-cluster.js';
import type { CopyProgressEvent } from '../copy/copy-progress.js';

/**
 * What the agent serves, behind its HTTP routes. The `ferry agent` command builds one over a connected cloud (the
 * same ensure()/status code `ferry ensure` / `ferry status` run, and their JSON mappings); tests build fakes.
 */
export interface AgentService {
  /** The store a request without `store` gets (--store / nova.conf); undefined when none is configured. */
  defaultStore(): string | undefined;
  ensure(request: AgentEnsureCall): Promise<AgentEnsureAnswer>;
  /** Exactly what `ferry status IMAGE --json` prints. */
  status(imageRef: string, signal: AbortSignal): Promise<unknown>;
  health(signal: AbortSignal): Promise<AgentHealth>;
}

export interface AgentEnsureCall {
  readonly imageRef: string;
  readonly store: string;
  readonly timeoutMs?: number | undefined;
  readonly signal: AbortSignal;
  readonly onProgress: (event: CopyProgressEvent) => void;
}

export interface AgentEnsureAnswer {
  /** Exactly what `ferry ensure --json` prints. */
  readonly document: unknown;
  /** For the metrics: copy-image requests made, and whether an import someone else started was joined. */
  readonly importRequests: number;
  readonly joined: boolean;
}

/** `GET /healthz`: one entry per check; healthy when all pass. */
export interface AgentHealth {
  readonly token: HealthCheck;
  readonly glance: HealthCheck;
  /**
   * `source`: where the fsid came from — `option` (--fsid), `cluster` (`ceph fsid` answered), or `ceph-conf` (the
   * cluster could not be asked: ceph.conf's value, unconfirmed; `warnings` says why). Still ok: clones can work.
   */
  readonly fsid: HealthCheck & { readonly fsid?: string; readonly source?: FsidSource; readonly warnings?: readonly string[] };
}

export type HealthCheck = { readonly ok: true } | { readonly ok: false; readonly code: string; readonly message: string };
