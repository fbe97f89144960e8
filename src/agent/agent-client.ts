import { request as httpRequest } from 'node:http';
import { FERRY_ERROR_CODES, type FerryErrorCode } from '../errors/error-table.js';
import { FerryError } from '../errors/ferry-error.js';

export interface AgentCall {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: unknown;
  /** Extra request headers: `X-Auth-Token`, the booting user's token (docs/agent.md, "Acting for the booting user"). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

export interface AgentAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** One HTTP/1.1 request to the agent's Unix socket. A socket that does not answer is FERRY_AGENT_UNAVAILABLE. */
export function callAgent(socketPath: string, call: AgentCall): Promise<AgentAnswer> {
  return new Promise((resolve, reject) => {
    const text = call.body === undefined ? undefined : JSON.stringify(call.body);
    const request = httpRequest({
      // A fresh connection per call (cheap on a Unix socket): Node's global agent keeps connections alive, and one the
      // agent closes as idle just as a long-lived caller reuses it fails with ECONNRESET, which would read as "away".
      socketPath, agent: false, method: call.method, path: call.path,
      headers: { accept: 'application/json', ...call.headers, ...(text === undefined ? {} : { 'content-type': 'application/json',
        'content-length': Buffer.byteLength(text) }) },
      ...(call.signal ? { signal: call.signal } : {}),
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown = raw;
        try {
          body = JSON.parse(raw) as unknown;
        } catch {
          // not JSON (e.g. /metrics): the text
        }
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (call.signal?.aborted) {
        reject(call.signal.reason as Error);
        return;
      }
      reject(new FerryError('FERRY_AGENT_UNAVAILABLE', `the ferry agent at ${socketPath} does not answer: ${error.code ?? error.message}`,
        error.code === 'EACCES' ? 'Run as a member of the socket group (--socket-group of the agent), or with --no-agent.'
          : 'Start it (systemctl start ferry-agent), point --agent / FERRY_AGENT_SOCKET at the right socket, or run with --no-agent.',
        { socketPath, errno: error.code }, { cause: error }));
    });
    request.end(text);
  });
}

/** The agent's answer as the CLI would have produced it: the document on 2xx, else its error re-raised with the same code. */
export function agentDocument(socketPath: string, answer: AgentAnswer): unknown {
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  const error = (answer.body as { error?: { code?: unknown; message?: unknown; hint?: unknown; details?: unknown } } | undefined)?.error;
  // The agent's details (already redacted, as the CLI prints them), so both paths print the same error document.
  const details = typeof error?.details === 'object' && error.details !== null && !Array.isArray(error.details)
    ? error.details as Record<string, unknown> : { socketPath, status: answer.status };
  const code = typeof error?.code === 'string' && (FERRY_ERROR_CODES as readonly string[]).includes(error.code)
    ? error.code as FerryErrorCode : 'FERRY_AGENT_UNAVAILABLE';
  throw new FerryError(code, typeof error?.message === 'string' ? error.message : `the ferry agent at ${socketPath} answered HTTP ${answer.status}`,
    typeof error?.hint === 'string' ? error.hint : 'See the agent log (journalctl -u ferry-agent).', details);
}
