import { z } from 'zod';
import { storeNameSchema } from '../config/store-name.js';
import { FerryError } from '../errors/ferry-error.js';
import type { ListenAddress } from '../metrics/listen-address.js';

/** How `ferry agent` listens and how much it takes on. Request defaults (store, timeout) come from the config. */
export interface AgentOptions {
  /** Unix socket path. Default AGENT_DEFAULTS.socketPath (FERRY_AGENT_SOCKET / --socket override it). */
  readonly socketPath?: string;
  /** Group that may connect (mode 0660): e.g. `nova`. Default: the agent's own group. */
  readonly socketGroup?: string;
  /** On SIGTERM: how long in-flight requests may still run before they are answered FERRY_AGENT_SHUTTING_DOWN. */
  readonly shutdownGraceMs?: number;
  /** Distinct (image, store) waits in flight at once; a request for one more gets 429 FERRY_AGENT_BUSY. */
  readonly maxWaits?: number;
  /** Largest request body accepted. */
  readonly maxBodyBytes?: number;
  /** Bound on each /healthz probe (token, Glance, fsid). */
  readonly healthTimeoutMs?: number;
  /** A TCP address serving only GET /metrics and GET /healthz (FERRY_AGENT_METRICS_LISTEN, --metrics-listen). Default: none. */
  readonly metricsListen?: ListenAddress;
  /**
   * --allow-store: the only stores requests may name. Default: the agent's own store (--store / nova.conf
   * images_rbd_glance_store_name), and nothing else.
   */
  readonly allowStores?: readonly string[];
  /** Connections open at once on the socket; one more is closed at once (nova's client then retries, or falls back). */
  readonly maxConnections?: number;
  /** Bound on receiving a whole request (headers and body); a long copy's answer is not bounded by it. */
  readonly requestTimeoutMs?: number;
  /** Bound on receiving a request's headers. */
  readonly headersTimeoutMs?: number;
  /** A connection with no request on it (none sent yet, or none since the last answer) is closed after this long. */
  readonly idleTimeoutMs?: number;
}

/** The environment variable both the agent and its clients read for the socket path. */
export const AGENT_SOCKET_ENV = 'FERRY_AGENT_SOCKET';
/** The environment variable equivalent to `--metrics-listen` (e.g. in /etc/default/ferry-agent). */
export const AGENT_METRICS_LISTEN_ENV = 'FERRY_AGENT_METRICS_LISTEN';

export const AGENT_DEFAULTS = {
  socketPath: '/run/ferry/agent.sock',
  shutdownGraceMs: 30_000,
  maxWaits: 64,
  maxBodyBytes: 64 * 1024,
  healthTimeoutMs: 5_000,
  /** nova-compute builds 10 instances at once by default (max_concurrent_builds): room for many of them and ferry's CLI. */
  maxConnections: 256,
  /** A request is at most 64 KiB: 30 s to send it is already generous. */
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
  /** An idle kept-alive connection closes after this long. */
  keepAliveTimeoutMs: 5_000,
  /** rw for the owner and the socket group, nothing for others. */
  socketMode: 0o660,
} as const;

export type ResolvedAgentOptions = Required<Omit<AgentOptions, 'socketGroup' | 'metricsListen' | 'allowStores'>>
  & Pick<AgentOptions, 'socketGroup' | 'metricsListen' | 'allowStores'>;

const schema = z.object({
  socketPath: z.string().min(1).max(107, 'at most 107 bytes (the Unix socket path limit)').refine((p) => p.startsWith('/'), 'an absolute path'),
  socketGroup: z.string().regex(/^[a-z_][a-z0-9_-]*\$?$/i, 'a group name').optional(),
  shutdownGraceMs: z.number().int().min(0),
  maxWaits: z.number().int().min(1),
  maxBodyBytes: z.number().int().min(1),
  healthTimeoutMs: z.number().int().positive(),
  allowStores: z.array(storeNameSchema('a Glance store id (letters, digits, _ . - only)')).min(1).optional(),
  maxConnections: z.number().int().min(1),
  requestTimeoutMs: z.number().int().positive(),
  headersTimeoutMs: z.number().int().positive(),
  idleTimeoutMs: z.number().int().positive(),
}).refine((options) => options.headersTimeoutMs <= options.requestTimeoutMs,
  { message: 'at most requestTimeoutMs (Node refuses a longer headers timeout)', path: ['headersTimeoutMs'] });

/** Fill defaults once and validate, so nothing below checks for undefined again. */
export function resolveAgentOptions(input: AgentOptions, sources: Readonly<Record<string, string>> = {}): ResolvedAgentOptions {
  const merged = {
    socketPath: input.socketPath ?? AGENT_DEFAULTS.socketPath,
    socketGroup: input.socketGroup,
    shutdownGraceMs: input.shutdownGraceMs ?? AGENT_DEFAULTS.shutdownGraceMs,
    maxWaits: input.maxWaits ?? AGENT_DEFAULTS.maxWaits,
    maxBodyBytes: input.maxBodyBytes ?? AGENT_DEFAULTS.maxBodyBytes,
    healthTimeoutMs: input.healthTimeoutMs ?? AGENT_DEFAULTS.healthTimeoutMs,
    allowStores: input.allowStores === undefined ? undefined : [...new Set(input.allowStores)],
    maxConnections: input.maxConnections ?? AGENT_DEFAULTS.maxConnections,
    requestTimeoutMs: input.requestTimeoutMs ?? AGENT_DEFAULTS.requestTimeoutMs,
    headersTimeoutMs: input.headersTimeoutMs ?? AGENT_DEFAULTS.headersTimeoutMs,
    idleTimeoutMs: input.idleTimeoutMs ?? AGENT_DEFAULTS.idleTimeoutMs,
  };
  const result = schema.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = String(issue?.path[0] ?? 'options');
    const value = (merged as Record<string, unknown>)[field];
    const from = sources[field] ? ` (from ${sources[field]})` : '';
    throw new FerryError('FERRY_INVALID_OPTION', `${field} must be ${issue?.message ?? 'valid'}, got ${JSON.stringify(value)}${from}`,
      `Fix the ${field} option.`, { option: field });
  }
  return { ...result.data, ...(input.metricsListen === undefined ? {} : { metricsListen: input.metricsListen }) };
}
