import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfidentialClientApplication, ServerError } from '@azure/msal-node';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { decodeProtectedHeader, type JWTPayload, decodeJwt } from 'jose';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMsalNetworkClient, type MsalNetworkClient } from '../../../src/auth/network-client.js';
import { createBuiltinIssuer, type BuiltinIssuer } from '../../../src/core/auth/issuer.js';
import { generateSecret, hashSecret } from '../../../src/core/auth/secret-hash.js';
import { createTokenVerifier, type TokenVerifier } from '../../../src/core/auth/verifier.js';
import { openSqliteStore } from '../../../src/core/store/index.js';
import type { Store } from '../../../src/core/store/store.js';
import { ensureTlsMaterial, type TlsMaterial } from '../../../src/tls/index.js';

const AUDIENCE = 'api://meeting-memory';
const SCOPE = `${AUDIENCE}/.default`;

interface TestPrincipal {
  oid: string;
  clientId: string;
  secret: string;
}

let dir: string;
let store: Store;
let tls: TlsMaterial;
let app: FastifyInstance;
let origin = '';
let issuer: BuiltinIssuer;
let verifier: TokenVerifier;
let http: Agent;
let tenantId: string;
let reader: TestPrincipal;
let admin: TestPrincipal;

async function addPrincipal(isAdmin: boolean): Promise<TestPrincipal> {
  const principal = { oid: randomUUID(), clientId: randomUUID(), secret: generateSecret() };
  await store.createPrincipal({
    tenantId,
    oid: principal.oid,
    clientId: principal.clientId,
    displayName: isAdmin ? 'Admin app' : 'Reader app',
    secretHash: await hashSecret(principal.secret),
    isAdmin,
  });
  return principal;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mm-issuer-'));
  store = await openSqliteStore(join(dir, 'memory.db'));
  tenantId = (await store.createTenant({ name: 'Contoso', region: 'us' })).id;
  reader = await addPrincipal(false);
  admin = await addPrincipal(true);
  tls = await ensureTlsMaterial(join(dir, 'tls'), []);

  issuer = await createBuiltinIssuer({ store, publicBaseUrl: () => origin, audience: AUDIENCE });
  app = Fastify({ https: { key: tls.key, cert: tls.cert } }) as unknown as FastifyInstance;
  // A root route and error handler like the core's, to show the issuer's form parser and error shape stay inside it.
  app.setErrorHandler((error: FastifyError, _request, reply) => reply.code(error.statusCode ?? 500).send({ root: true }));
  app.post('/v1/echo', async (req) => req.body);
  await issuer.register(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  origin = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  verifier = createTokenVerifier({ mode: 'builtin', issuerBaseUrl: () => origin, audience: AUDIENCE, keys: issuer.jwks });
  http = new Agent({ connect: { ca: tls.ca } });
});

afterAll(async () => {
  await http?.close();
  await app?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

/** MSAL exactly as the CLI will configure it against a self-hosted core, with every request it makes recorded. */
function msalApp(principal: TestPrincipal, secret = principal.secret) {
  const network = createMsalNetworkClient({ ca: tls.ca });
  const requested: string[] = [];
  const recording: MsalNetworkClient = {
    sendGetRequestAsync: (url, options, timeout) => (requested.push(`GET ${url}`), network.sendGetRequestAsync(url, options, timeout)),
    sendPostRequestAsync: (url, options) => (requested.push(`POST ${url}`), network.sendPostRequestAsync(url, options)),
    close: () => network.close(),
  };
  const client = new ConfidentialClientApplication({
    auth: {
      clientId: principal.clientId,
      clientSecret: secret,
      authority: `${origin}/${tenantId}`,
      knownAuthorities: [new URL(origin).host],
    },
    system: { networkClient: recording },
  });
  return { client, requested, network: recording };
}

async function postToken(form: Record<string, string>, options: { tenant?: string; contentType?: string } = {}) {
  const response = await request(`${origin}/${options.tenant ?? tenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    dispatcher: http,
    headers: { 'content-type': options.contentType ?? 'application/x-www-form-urlencoded' },
    body: options.contentType === 'application/json' ? JSON.stringify(form) : new URLSearchParams(form).toString(),
  });
  return { status: response.statusCode, headers: response.headers, body: (await response.body.json()) as Record<string, unknown> };
}

async function getJson(path: string) {
  const response = await request(`${origin}${path}`, { dispatcher: http });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

function credentials(principal: TestPrincipal, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    grant_type: 'client_credentials',
    client_id: principal.clientId,
    client_secret: principal.secret,
    scope: SCOPE,
    ...overrides,
  };
}

describe('MSAL against the built-in issuer over the generated TLS', () => {
  it('acquires a client-credentials token that the verifier accepts, without contacting Microsoft', async () => {
    const { client, requested, network } = msalApp(reader);
    try {
      const result = await client.acquireTokenByClientCredential({ scopes: [SCOPE] });
      expect(result?.tokenType).toBe('Bearer');
      const caller = await verifier.verify(`Bearer ${result?.accessToken}`);
      expect(caller).toEqual({ tenantId, oid: reader.oid, clientId: reader.clientId, roles: [] });
      expect(requested.map((line) => line.split('?')[0])).toEqual([
        `GET ${origin}/${tenantId}/v2.0/.well-known/openid-configuration`,
        `POST ${origin}/${tenantId}/oauth2/v2.0/token`,
      ]);

      const cached = await client.acquireTokenByClientCredential({ scopes: [SCOPE] });
      expect(cached?.accessToken).toBe(result?.accessToken);
      expect(requested).toHaveLength(2);
    } finally {
      await network.close();
    }
  });

  it('gives an admin principal the Memory.Admin role and Entra-shaped claims', async () => {
    const { client, network } = msalApp(admin);
    try {
      const result = await client.acquireTokenByClientCredential({ scopes: [SCOPE] });
      const token = result?.accessToken ?? '';
      expect((await verifier.verify(`Bearer ${token}`)).roles).toEqual(['Memory.Admin']);
      const claims: JWTPayload = decodeJwt(token);
      expect(claims).toMatchObject({
        iss: `${origin}/${tenantId}/v2.0`,
        aud: AUDIENCE,
        sub: admin.oid,
        oid: admin.oid,
        tid: tenantId,
        azp: admin.clientId,
        appid: admin.clientId,
        ver: '2.0',
        idtyp: 'app',
      });
      expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(3600);
      expect(claims.nbf).toBe(claims.iat);
      expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: issuer.jwks.keys[0]?.kid, typ: 'JWT' });
    } finally {
      await network.close();
    }
  });

  it('surfaces a wrong secret as an invalid_client ServerError', async () => {
    const { client, requested, network } = msalApp(reader, 'not-the-secret');
    try {
      const error = await client.acquireTokenByClientCredential({ scopes: [SCOPE] }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ServerError);
      expect((error as ServerError).errorCode).toBe('invalid_client');
      const post = new URL(requested.at(-1)?.replace(/^POST /, '') ?? '');
      expect((error as ServerError).correlationId).toBe(post.searchParams.get('client-request-id'));
    } finally {
      await network.close();
    }
  });
});

describe('token endpoint', () => {
  it('answers a form POST with an Entra-shaped token response that is not cached', async () => {
    const { status, headers, body } = await postToken(credentials(reader));
    expect(status).toBe(200);
    expect(headers['cache-control']).toBe('no-store');
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, ext_expires_in: 3600 });
    expect((await verifier.verify(`Bearer ${String(body.access_token)}`)).oid).toBe(reader.oid);
  });

  it('refuses a wrong secret and an unknown client alike with 401 invalid_client', async () => {
    const wrongSecret = await postToken(credentials(reader, { client_secret: generateSecret() }));
    const unknownClient = await postToken(credentials(reader, { client_id: randomUUID() }));
    const otherTenantsClient = await postToken(credentials(admin, { client_secret: reader.secret }));
    const noSecret = await postToken(credentials(reader, { client_secret: '' }));
    for (const answer of [wrongSecret, unknownClient, otherTenantsClient, noSecret]) {
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_client');
      expect(answer.body).not.toHaveProperty('access_token');
    }
    expect(unknownClient.body.error_description).toBe(wrongSecret.body.error_description);
  });

  it('refuses another scope with 400 invalid_scope', async () => {
    for (const scope of ['api://other/.default', `${AUDIENCE}/Memory.Read`, `${SCOPE} openid`, 'https://graph.microsoft.com/.default']) {
      const { status, body } = await postToken(credentials(reader, { scope }));
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_scope');
    }
  });

  it('refuses another grant type with 400 unsupported_grant_type', async () => {
    for (const grant_type of ['password', 'authorization_code', 'refresh_token']) {
      const { status, body } = await postToken(credentials(reader, { grant_type }));
      expect(status).toBe(400);
      expect(body.error).toBe('unsupported_grant_type');
    }
  });

  it('refuses malformed requests with 400 invalid_request', async () => {
    const answers = [
      await postToken(credentials(reader, { grant_type: '' })),
      await postToken(credentials(reader, { client_id: '' })),
      await postToken(credentials(reader, { scope: '' })),
      await postToken(credentials(reader), { contentType: 'application/json' }),
      await postToken(credentials(reader), { tenant: randomUUID() }),
      await postToken(credentials(reader), { tenant: 'common' }),
    ];
    for (const { status, body } of answers) {
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_request');
      expect(typeof body.error_description).toBe('string');
    }
  });

  it('refuses a parameter sent twice', async () => {
    const response = await request(`${origin}/${tenantId}/oauth2/v2.0/token`, {
      method: 'POST',
      dispatcher: http,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `${new URLSearchParams(credentials(reader)).toString()}&client_id=${admin.clientId}`,
    });
    expect(response.statusCode).toBe(400);
    expect(((await response.body.json()) as { error: string }).error).toBe('invalid_request');
  });
});

describe('mounting', () => {
  it('keeps the form parser and the OAuth error shape inside the issuer routes', async () => {
    const json = await request(`${origin}/v1/echo`, {
      method: 'POST',
      dispatcher: http,
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(await json.body.json()).toEqual({ a: 1 });
    const form = await request(`${origin}/v1/echo`, {
      method: 'POST',
      dispatcher: http,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(form.statusCode).toBe(415);
    expect(await form.body.json()).toEqual({ root: true });
  });
});

describe('discovery', () => {
  it('publishes an OpenID configuration for a known tenant', async () => {
    const { status, body } = await getJson(`/${tenantId}/v2.0/.well-known/openid-configuration`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      issuer: `${origin}/${tenantId}/v2.0`,
      token_endpoint: `${origin}/${tenantId}/oauth2/v2.0/token`,
      jwks_uri: `${origin}/${tenantId}/discovery/v2.0/keys`,
      authorization_endpoint: `${origin}/${tenantId}/oauth2/v2.0/authorize`,
      grant_types_supported: ['client_credentials'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
    expect(issuer.tokenUrlFor(tenantId)).toBe(body.token_endpoint);
    expect(issuer.authorityFor(tenantId)).toBe(`${origin}/${tenantId}`);
  });

  it('publishes the public signing key only, per tenant and under common', async () => {
    for (const tenant of [tenantId, 'common']) {
      const { status, body } = await getJson(`/${tenant}/discovery/v2.0/keys`);
      expect(status).toBe(200);
      expect(body).toEqual(issuer.jwks);
    }
    const [key] = issuer.jwks.keys;
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(key).not.toHaveProperty('d');
  });

  it('answers an unknown tenant with 400 invalid_request', async () => {
    for (const path of [`/${randomUUID()}/v2.0/.well-known/openid-configuration`, `/${randomUUID()}/discovery/v2.0/keys`, '/not-a-tenant/discovery/v2.0/keys']) {
      const { status, body } = await getJson(path);
      expect(status).toBe(400);
      expect(body.error).toBe('invalid_request');
    }
  });
});

describe('signing key', () => {
  it('is shared by every issuer on the same database, across reopening it', async () => {
    const file = join(dir, 'shared.db');
    const first = await openSqliteStore(file);
    await first.createTenant({ id: tenantId, name: 'Contoso', region: 'us' });
    const [a, b] = await Promise.all([
      createBuiltinIssuer({ store: first, publicBaseUrl: origin, audience: AUDIENCE }),
      createBuiltinIssuer({ store: first, publicBaseUrl: origin, audience: AUDIENCE }),
    ]);
    expect(b.jwks).toEqual(a.jwks);
    await first.close();

    const reopened = await openSqliteStore(file);
    try {
      const c = await createBuiltinIssuer({ store: reopened, publicBaseUrl: `${origin}/`, audience: AUDIENCE });
      expect(c.jwks).toEqual(a.jwks);
      expect(c.jwks).not.toEqual(issuer.jwks);
      const token = await a.issueToken({
        tenantId,
        oid: reader.oid,
        clientId: reader.clientId,
        displayName: 'Reader app',
        secretHash: '',
        isAdmin: false,
        createdAt: '2026-01-01T00:00:00Z',
      });
      const sharedVerifier = createTokenVerifier({ mode: 'builtin', issuerBaseUrl: origin, audience: AUDIENCE, keys: c.jwks });
      expect((await sharedVerifier.verify(`Bearer ${token}`)).oid).toBe(reader.oid);
      await expect(verifier.verify(`Bearer ${token}`)).rejects.toMatchObject({ status: 401 });
    } finally {
      await reopened.close();
    }
  });
});
