// The fixture recorder's plumbing: the dev cloud descriptor, one HTTP call, redaction, and the files it writes.
// Plain global fetch on purpose: the fixtures must show what the services send, not what ferry's client makes of it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Devcloud {
  readonly keystone: { readonly url: string };
  readonly glance: { readonly url: string; readonly stores: readonly string[]; readonly sqlite: string; readonly log: string };
  readonly placement: { readonly url: string };
  readonly users: Readonly<Record<'admin' | 'demo', { readonly name: string; readonly password: string; readonly project: string }>>;
  readonly appcreds: Readonly<Record<'admin' | 'demo', { readonly id: string; readonly secret: string }>>;
}

export type Service = 'keystone' | 'glance' | 'placement';

export interface CallSpec {
  readonly method: string;
  readonly url: string;
  readonly token?: string;
  readonly json?: unknown;
  readonly bytes?: Uint8Array;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

export interface RecordedCase {
  readonly request: { readonly method: string; readonly path: string; readonly body?: unknown };
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

const KEPT_HEADERS = ['content-type', 'x-openstack-request-id', 'openstack-api-version', 'location', 'www-authenticate'];
const REQUEST_TIMEOUT_MS = 120_000;

export function loadDevcloud(path: string): Devcloud {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const cloud = parsed as Devcloud;
  if (typeof cloud.keystone?.url !== 'string' || typeof cloud.glance?.url !== 'string' || !cloud.appcreds?.admin) {
    throw new Error(`${path} does not look like a devcloud.json (written by scripts/devcloud/up)`);
  }
  return cloud;
}

export class Recorder {
  private readonly secrets = new Map<string, '<token>' | '<secret>'>();
  readonly recorded: string[] = [];
  readonly notes: string[] = [];

  constructor(
    readonly cloud: Devcloud,
    private readonly fixturesDir: string,
  ) {
    for (const user of Object.values(cloud.users)) this.secrets.set(user.password, '<secret>');
    for (const cred of Object.values(cloud.appcreds)) this.secrets.set(cred.secret, '<secret>');
  }

  /** Every token the recorder sees is registered here so that no file can contain it. */
  addToken(token: string): void {
    this.secrets.set(token, '<token>');
  }

  async call(spec: CallSpec): Promise<Answer> {
    const headers: Record<string, string> = { Accept: 'application/json', ...spec.headers };
    if (spec.token !== undefined) headers['X-Auth-Token'] = spec.token;
    let body: string | Uint8Array | undefined;
    if (spec.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(spec.json);
    } else if (spec.bytes !== undefined) {
      headers['Content-Type'] = 'application/octet-stream';
      body = spec.bytes;
    }
    const res = await fetch(spec.url, {
      method: spec.method,
      headers,
      body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const subject = res.headers.get('x-subject-token');
    if (subject !== null) this.addToken(subject);
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: parseBody(text, res.headers.get('content-type')) };
  }

  /** Calls and saves `fixtures/<service>/<name>.json`. */
  async record(service: Service, name: string, spec: CallSpec): Promise<Answer> {
    const answer = await this.call(spec);
    this.save(service, name, spec, answer);
    return answer;
  }

  save(service: Service, name: string, spec: CallSpec, answer: Answer): void {
    const url = new URL(spec.url);
    const headers: Record<string, string> = {};
    for (const key of KEPT_HEADERS) {
      const value = answer.headers.get(key);
      if (value !== null) headers[key] = value;
    }
    const recorded: RecordedCase = {
      request: {
        method: spec.method,
        path: url.pathname + url.search,
        ...(spec.json !== undefined ? { body: spec.json } : {}),
        ...(spec.bytes !== undefined ? { body: `<${spec.bytes.byteLength} bytes>` } : {}),
      },
      status: answer.status,
      headers,
      body: answer.body,
    };
    this.saveDocument(service, name, recorded);
  }

  saveDocument(service: Service, name: string, document: unknown): void {
    const text = JSON.stringify(this.redact(document), null, 2) + '\n';
    for (const secret of this.secrets.keys()) {
      if (secret.length > 0 && text.includes(secret)) throw new Error(`refusing to write ${service}/${name}: a secret survived redaction`);
    }
    const dir = join(this.fixturesDir, service);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.json`), text);
    this.recorded.push(`${service}/${name}`);
  }

  note(message: string): void {
    this.notes.push(message);
    console.log(`  note: ${message}`);
  }

  private redact(value: unknown): unknown {
    if (typeof value === 'string') {
      let out = value;
      for (const [secret, placeholder] of this.secrets) {
        if (secret.length > 0 && out.includes(secret)) out = out.split(secret).join(placeholder);
      }
      return out;
    }
    if (Array.isArray(value)) return value.map((v) => this.redact(v));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.redact(v)]));
    }
    return value;
  }
}

function parseBody(text: string, contentType: string | null): unknown {
  if (text.length === 0) return null;
  if (contentType?.includes('json') === true) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

export function field(body: unknown, key: string): unknown {
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[key] : undefined;
}

export function stringField(body: unknown, key: string): string | undefined {
  const value = field(body, key);
  return typeof value === 'string' ? value : undefined;
}

export function expectStatus(answer: Answer, expected: number, what: string): void {
  if (answer.status !== expected) {
    throw new Error(`${what}: expected ${expected}, got ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
}
