import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_OPERATIONS } from '../../../src/contract/admin-operations.js';
import { pathParams } from '../../../src/contract/index.js';
import { verifySecret } from '../../../src/core/auth/secret-hash.js';
import { requestToken } from '../../helpers/core.js';
import { call, SCOPE, startAdminCore, type AdminCore, type Answer } from './admin-helpers.js';

let a: AdminCore;
let atlas: string;
let juniper: string;

beforeAll(async () => {
  a = await startAdminCore();
  atlas = a.t.creds.deployments[0]!.id;
  juniper = a.t.creds.deployments[1]!.id;
});
afterAll(async () => a?.t.stop());

const asAdmin = (method: string, path: string, body?: unknown) => call(a.t, method, path, { token: a.adminToken, body });

function expectRefused(answer: Answer, status: number, name?: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.headers.get('content-type')).toContain('application/problem+json');
  if (name !== undefined) expect(answer.body.invalid_params).toEqual(expect.arrayContaining([expect.objectContaining({ name })]));
}

/** A request for every admin operation, with placeholders in its path, as a caller without the role might send it. */
function everyAdminRoute(): { method: string; path: string }[] {
  return ADMIN_OPERATIONS.map((op) => ({
    method: op.method,
    path: pathParams(op).reduce((path, name) => path.replace(`{${name}}`, name === 'deployment_id' ? atlas : 'x'), op.path),
  }));
}

describe('who may administer', () => {
  it('answers every non-admin token the same 403 on every admin route, whatever grant it holds', async () => {
    const bodies = new Set<string>();
    for (const principal of [0, 1, 2]) {
      const token = await a.t.token(principal);
      for (const route of everyAdminRoute()) {
        const answer = await call(a.t, route.method, route.path, { token, body: route.method === 'GET' ? undefined : {} });
        expectRefused(answer, 403);
        const { instance: _instance, request_id: _id, ...rest } = answer.body;
        bodies.add(JSON.stringify(rest));
      }
    }
    expect(bodies.size).toBe(1);
  });

  it('answers 401 without a token', async () => {
    expectRefused(await call(a.t, 'GET', '/admin/tenant'), 401);
  });

  it("keeps an admin inside its own tenant: another tenant's deployment is not found", async () => {
    const answer = await call(a.t, 'GET', `/admin/deployments/${atlas}`, { token: a.operatorToken });
    expectRefused(answer, 404);
    expect((await asAdmin('GET', `/admin/deployments/${atlas}`)).status).toBe(200);
  });

  it('lets only the operator tenant change what every tenant shares', async () => {
    for (const [method, path, body] of [
      ['GET', '/admin/audit/verification', undefined],
      ['PATCH', '/admin/audit/retention', { reads_days: 30 }],
      ['PUT', '/admin/v1-schedule', { deprecation_at: '2030-01-01', sunset_at: '2031-01-01' }],
      ['DELETE', '/admin/v1-schedule', undefined],
    ] as const) {
      const answer = await asAdmin(method, path, body);
      expectRefused(answer, 403);
      expect(answer.body.detail).toContain('operator tenant');
    }
  });
});

describe('tenant', () => {
  it('shows and renames the own tenant, and takes region us or ca only', async () => {
    const tenant = await asAdmin('GET', '/admin/tenant');
    expect(tenant.body).toMatchObject({ id: a.t.creds.tenant_id, type: 'tenant', name: 'Demo Co', region: 'us' });
    expectRefused(await asAdmin('PATCH', '/admin/tenant', { region: 'eu' }), 400, 'region');
    expectRefused(await asAdmin('PATCH', '/admin/tenant', {}), 400);
    expectRefused(await asAdmin('PATCH', '/admin/tenant', { name: 'x', tenant_id: 'y' }), 400, 'tenant_id');
    const moved = await asAdmin('PATCH', '/admin/tenant', { region: 'ca', name: 'Demo Co Canada' });
    expect(moved.body).toMatchObject({ region: 'ca', name: 'Demo Co Canada' });
    await asAdmin('PATCH', '/admin/tenant', { region: 'us', name: 'Demo Co' });
  });
});

describe('deployments', () => {
  it('creates a deployment with name, platform, voice and avatar, lists and shows it', async () => {
    const body = { name: 'Nova', platform: 'zoom', voice: 'alloy', avatar_url: 'https://cdn.example.com/nova.png' };
    const created = await asAdmin('POST', '/admin/deployments', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...body, type: 'deployment' });
    expect(created.headers.get('location')).toBe(`/v1/admin/deployments/${created.body.id}`);
    const listed = await asAdmin('GET', '/admin/deployments');
    expect(listed.body.items.map((d: { name: string }) => d.name)).toEqual(['Atlas', 'Juniper', 'Nova']);
    expect((await asAdmin('GET', `/admin/deployments/${created.body.id}`)).body).toEqual(created.body);
  });

  it('refuses a platform outside teams|zoom|meet|webex, an http avatar and a missing voice', async () => {
    expectRefused(await asAdmin('POST', '/admin/deployments', { name: 'X', platform: 'skype', voice: 'v' }), 400, 'platform');
    expectRefused(
      await asAdmin('POST', '/admin/deployments', { name: 'X', platform: 'meet', voice: 'v', avatar_url: 'http://x.example/a.png' }),
      400,
      'avatar_url',
    );
    expectRefused(await asAdmin('POST', '/admin/deployments', { name: 'X', platform: 'meet' }), 400, 'voice');
  });

  it('answers 404 for a deployment the tenant does not have', async () => {
    expectRefused(await asAdmin('GET', '/admin/deployments/no-such-deployment'), 404);
  });
});

describe('service principals and grants', () => {
  it('shows a new secret once, keeps only its scrypt hash, and the secret gets a token', async () => {
    const created = await asAdmin('POST', '/admin/principals', { display_name: 'support agent' });
    expect(created.status).toBe(201);
    const credential = created.body;
    expect(credential).toMatchObject({ type: 'service_principal', is_admin: false, scope: SCOPE, token_url: a.t.creds.token_url });
    expect(credential.client_secret).toMatch(/^[A-Za-z0-9_-]{40}$/);
    const stored = await a.t.core.store.getPrincipalByClientId(a.t.creds.tenant_id, credential.client_id);
    expect(stored!.secretHash).toMatch(/^scrypt\$/);
    expect(stored!.secretHash).not.toContain(credential.client_secret);
    expect(await verifySecret(credential.client_secret, stored!.secretHash)).toBe(true);

    const listed = await asAdmin('GET', '/admin/principals');
    expect(JSON.stringify(listed.body)).not.toContain('client_secret');
    const shown = await asAdmin('GET', `/admin/principals/${credential.client_id}`);
    expect(shown.body).not.toHaveProperty('client_secret');
    await requestToken(credential.token_url, credential.client_id, credential.client_secret, SCOPE);
  });

  it('rotates a secret: the new one is shown once and the old one stops working', async () => {
    const { body: credential } = await asAdmin('POST', '/admin/principals', { display_name: 'rotating' });
    const rotated = await asAdmin('POST', `/admin/principals/${credential.client_id}/secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.client_secret).not.toBe(credential.client_secret);
    await expect(requestToken(credential.token_url, credential.client_id, credential.client_secret, SCOPE)).rejects.toThrow(/401/);
    await requestToken(credential.token_url, credential.client_id, rotated.body.client_secret, SCOPE);
  });

  it('makes an admin principal whose tokens administer, and registers an external principal without a secret', async () => {
    const { body: admin } = await asAdmin('POST', '/admin/principals', { display_name: 'second admin', is_admin: true });
    const token = await requestToken(admin.token_url, admin.client_id, admin.client_secret, SCOPE);
    expect((await call(a.t, 'GET', '/admin/tenant', { token })).status).toBe(200);

    const external = await asAdmin('POST', '/admin/principals', {
      display_name: 'entra app',
      object_id: '11111111-2222-4333-8444-555555555555',
      client_id: '66666666-7777-4888-8999-aaaaaaaaaaaa',
    });
    expect(external.body).toMatchObject({ client_secret: null, token_url: null, object_id: '11111111-2222-4333-8444-555555555555' });
    expectRefused(await asAdmin('POST', `/admin/principals/${external.body.client_id}/secret`), 400, 'client_id');
    expectRefused(await asAdmin('POST', '/admin/principals', { display_name: 'half', object_id: '11111111-2222-4333-8444-555555555556' }), 400);
  });

  it('grants read by default, read_write on request, another deployment as an explicit opt-in, and revokes', async () => {
    const { body: credential } = await asAdmin('POST', '/admin/principals', { display_name: 'granted' });
    const token = await requestToken(credential.token_url, credential.client_id, credential.client_secret, SCOPE);
    const grantPath = (deployment: string) => `/admin/principals/${credential.client_id}/grants/${deployment}`;
    const create = () => call(a.t, 'POST', `/deployments/${atlas}/action-items`, { token, body: { text: 'Send the deck' } });

    expectRefused(await call(a.t, 'GET', `/deployments/${atlas}/decisions`, { token }), 403);
    const read = await asAdmin('PUT', grantPath(atlas), {});
    expect(read.body).toMatchObject({ type: 'grant', deployment_id: atlas, access: 'read', client_id: credential.client_id });
    expect((await call(a.t, 'GET', `/deployments/${atlas}/decisions`, { token })).status).toBe(200);
    expectRefused(await create(), 403);
    expectRefused(await call(a.t, 'GET', `/deployments/${juniper}/decisions`, { token }), 403);

    await asAdmin('PUT', grantPath(atlas), { access: 'read_write' });
    expect((await create()).status).toBe(201);
    await asAdmin('PUT', grantPath(juniper), {});
    const reachable = await call(a.t, 'GET', '/deployments', { token });
    expect(reachable.body.items.map((d: { id: string; access: string }) => [d.id, d.access]).sort()).toEqual(
      [[atlas, 'read_write'], [juniper, 'read']].sort(),
    );
    expect((await asAdmin('GET', `/admin/grants?client_id=${credential.client_id}`)).body.items).toHaveLength(2);
    expect((await asAdmin('GET', `/admin/grants?deployment_id=${juniper}`)).body.items.map((g: { client_id: string }) => g.client_id)).toContain(
      credential.client_id,
    );

    const revoked = await asAdmin('DELETE', grantPath(juniper));
    expect(revoked.body).toMatchObject({ deployment_id: juniper, access: 'read' });
    expectRefused(await call(a.t, 'GET', `/deployments/${juniper}/decisions`, { token }), 403);
    expectRefused(await asAdmin('DELETE', grantPath(juniper)), 404);
    expectRefused(await asAdmin('PUT', grantPath(atlas), { access: 'admin' }), 400, 'access');
    expectRefused(await asAdmin('PUT', `/admin/principals/no-such-client/grants/${atlas}`, {}), 404);
  });
});

describe('agent backend registration', () => {
  const path = () => `/admin/deployments/${atlas}/agent-backend`;
  const valid = { url: 'https://agent.example.com/teammate', secret_ref: 'env:ATLAS_AGENT_SECRET' };

  it('registers an https endpoint with a secret reference and the defaults, where the invoker reads it', async () => {
    expectRefused(await asAdmin('GET', path()), 404);
    const registered = await asAdmin('PUT', path(), valid);
    expect(registered.status).toBe(200);
    expect(registered.body).toMatchObject({
      ...valid,
      type: 'agent_backend',
      deployment_id: atlas,
      timeout_ms: 15000,
      fallback_line: "Sorry, I can't answer that right now.",
      system_prompt: null,
    });
    const replaced = await asAdmin('PUT', path(), {
      url: 'https://agent.example.com/v2',
      secret_ref: 'keychain:meeting-memory/atlas',
      timeout_ms: 30000,
      fallback_line: 'One moment, I will follow up after the meeting.',
      system_prompt: 'You are Atlas.',
    });
    expect((await asAdmin('GET', path())).body).toEqual(replaced.body);
    const stored = await a.t.core.store.getAgentBackend({ tenantId: a.t.creds.tenant_id, deploymentId: atlas });
    expect(stored).toMatchObject({ url: 'https://agent.example.com/v2', secretRef: 'keychain:meeting-memory/atlas', timeoutMs: 30000 });
    expect(await asAdmin('PUT', path(), { ...valid, secret_ref: 'file:/run/secrets/atlas' })).toMatchObject({ status: 200 });
  });

  it('refuses a raw secret without repeating it, and every malformed reference', async () => {
    for (const secret of ['sk-live-4f9a8b7c6d5e', 'c2VjcmV0LXZhbHVl', 'vault:kv/atlas']) {
      const answer = await asAdmin('PUT', path(), { ...valid, secret_ref: secret });
      expectRefused(answer, 400, 'secret_ref');
      expect(JSON.stringify(answer.body)).not.toContain(secret);
    }
    for (const reference of ['env:', 'env:not a name', 'file:relative/path', 'keychain:no-account']) {
      expectRefused(await asAdmin('PUT', path(), { ...valid, secret_ref: reference }), 400, 'secret_ref');
    }
  });

  it('refuses a URL that is not https, carries credentials, or a budget outside 1..30 s', async () => {
    for (const url of ['http://agent.example.com/x', 'http://127.0.0.1:9000/x', 'ftp://agent.example.com', 'agent.example.com', 'https://user:pw@agent.example.com/']) {
      expectRefused(await asAdmin('PUT', path(), { ...valid, url }), 400, 'url');
    }
    for (const timeout_ms of [999, 30001, 1500.5]) {
      expectRefused(await asAdmin('PUT', path(), { ...valid, timeout_ms }), 400, 'timeout_ms');
    }
    expect((await asAdmin('PUT', path(), { ...valid, timeout_ms: 1000 })).body.timeout_ms).toBe(1000);
    expectRefused(await asAdmin('PUT', '/admin/deployments/nope/agent-backend', valid), 404);
  });

  it('takes http on loopback only when the operator allows it', async () => {
    const loose = await startAdminCore({ allowHttpLoopbackBackends: true });
    try {
      const deployment = loose.t.creds.deployments[0]!.id;
      const put = (url: string) =>
        call(loose.t, 'PUT', `/admin/deployments/${deployment}/agent-backend`, { token: loose.adminToken, body: { ...valid, url } });
      expect((await put('http://127.0.0.1:9000/agent')).status).toBe(200);
      expect((await put('http://localhost:9000/agent')).status).toBe(200);
      expectRefused(await put('http://agent.example.com/agent'), 400, 'url');
    } finally {
      await loose.t.stop();
    }
  });
});

describe('people', () => {
  it('maps speaker names to identity-provider ids and lists them', async () => {
    const people = [
      { idp_id: '0f6b2a1e-7c8d-4e5f-9a0b-1c2d3e4f5a6b', display_name: 'Priya Raman' },
      { idp_id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', display_name: 'Marcus Lee' },
    ];
    const set = await asAdmin('POST', '/admin/people', { people });
    expect(set.body.items).toEqual(
      expect.arrayContaining(people.map((person) => ({ type: 'person', ...person }))),
    );
    expect((await asAdmin('GET', '/admin/people')).body.items).toHaveLength(2);
    expectRefused(await asAdmin('POST', '/admin/people', { people: [] }), 400, 'people');
  });
});

describe('audit, retention and the v1 schedule', () => {
  it("queries the tenant's audit log, which holds the admin calls", async () => {
    await asAdmin('GET', '/admin/tenant');
    const page = await asAdmin('GET', '/admin/audit?operation=getTenant&limit=5');
    expect(page.status).toBe(200);
    expect(page.body.items.length).toBeGreaterThan(0);
    for (const entry of page.body.items) {
      expect(entry).toMatchObject({ type: 'audit_entry', operation: 'getTenant', tenant_id: a.t.creds.tenant_id, surface: 'rest' });
    }
    const refused = await asAdmin('GET', '/admin/audit?kind=action&status=403');
    expect(refused.body.items.every((entry: { status: number }) => entry.status === 403)).toBe(true);
    expectRefused(await asAdmin('GET', '/admin/audit?limit=0'), 400, 'limit');
  });

  it('lets the operator verify the chain, set retention and schedule the end of v1 within the notice rules', async () => {
    const op = (method: string, path: string, body?: unknown) => call(a.t, method, path, { token: a.operatorToken, body });
    const verified = await op('GET', '/admin/audit/verification');
    expect(verified.body).toMatchObject({ ok: true });
    expect(verified.body.checked).toBeGreaterThan(0);

    expect((await asAdmin('GET', '/admin/audit/retention')).body).toEqual({ reads_days: 90, actions_days: 2557 });
    expect((await op('PATCH', '/admin/audit/retention', { reads_days: 30 })).body).toEqual({ reads_days: 30, actions_days: 2557 });
    expectRefused(await op('PATCH', '/admin/audit/retention', { reads_days: 0 }), 400, 'reads_days');

    expect((await asAdmin('GET', '/admin/v1-schedule')).body).toEqual({ type: 'v1_schedule', deprecation_at: null, sunset_at: null, set_at: null });
    const soon = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    expectRefused(await op('PUT', '/admin/v1-schedule', { deprecation_at: soon, sunset_at: '2040-01-01' }), 400, 'deprecation_at');
    const scheduled = await op('PUT', '/admin/v1-schedule', { deprecation_at: '2035-01-01', sunset_at: '2036-01-01' });
    expect(scheduled.body).toMatchObject({ deprecation_at: '2035-01-01T00:00:00Z', sunset_at: '2036-01-01T00:00:00Z' });
    expect((await asAdmin('GET', '/admin/tenant')).headers.get('sunset')).toBe(new Date('2036-01-01T00:00:00Z').toUTCString());
    expect((await op('DELETE', '/admin/v1-schedule')).body.deprecation_at).toBeNull();
    expect((await asAdmin('GET', '/admin/tenant')).headers.get('sunset')).toBeNull();
  });
});
