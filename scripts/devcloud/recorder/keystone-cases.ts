// Keystone token requests: password (admin, member), application credential, and the two 401s.
import type { CallSpec, Recorder } from './recorder.js';
import { expectStatus } from './recorder.js';

export interface Tokens {
  readonly admin: string;
  readonly member: string;
}

function passwordAuth(name: string, password: string, project: string): unknown {
  return {
    auth: {
      identity: { methods: ['password'], password: { user: { name, domain: { id: 'default' }, password } } },
      scope: { project: { name: project, domain: { id: 'default' } } },
    },
  };
}

function appcredAuth(id: string, secret: string): { auth: Record<string, unknown> } {
  return { auth: { identity: { methods: ['application_credential'], application_credential: { id, secret } } } };
}

export async function recordKeystoneCases(rec: Recorder): Promise<Tokens> {
  const { users, appcreds } = rec.cloud;
  const url = `${rec.cloud.keystone.url}/auth/tokens`;
  const tokenOf = (headers: Headers, what: string): string => {
    const token = headers.get('x-subject-token');
    if (token === null) throw new Error(`${what}: no X-Subject-Token`);
    return token;
  };

  const adminSpec: CallSpec = { method: 'POST', url, json: passwordAuth(users.admin.name, users.admin.password, users.admin.project) };
  const admin = await rec.record('keystone', 'token-password-admin', adminSpec);
  expectStatus(admin, 201, 'admin password token');

  const memberSpec: CallSpec = { method: 'POST', url, json: passwordAuth(users.demo.name, users.demo.password, users.demo.project) };
  const member = await rec.record('keystone', 'token-password-member', memberSpec);
  expectStatus(member, 201, 'member password token');

  const appcred = await rec.record('keystone', 'token-appcred', {
    method: 'POST',
    url,
    json: appcredAuth(appcreds.admin.id, appcreds.admin.secret),
  });
  expectStatus(appcred, 201, 'application credential token');

  const bad = await rec.record('keystone', 'token-bad-password', {
    method: 'POST',
    url,
    json: passwordAuth(users.admin.name, 'not-the-password', users.admin.project),
  });
  expectStatus(bad, 401, 'wrong password');

  const scoped = appcredAuth(appcreds.admin.id, appcreds.admin.secret);
  scoped.auth.scope = { project: { name: users.admin.project, domain: { id: 'default' } } };
  const withScope = await rec.record('keystone', 'token-appcred-with-scope', { method: 'POST', url, json: scoped });
  expectStatus(withScope, 401, 'application credential with scope');

  return { admin: tokenOf(admin.headers, 'admin'), member: tokenOf(member.headers, 'member') };
}
