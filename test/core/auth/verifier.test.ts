import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  base64url,
  calculateJwkThumbprint,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  SignJWT,
  UnsecuredJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenVerifier, type TokenVerifier } from '../../../src/core/auth/verifier.js';
import { HttpProblem } from '../../../src/core/server/problem.js';

const AUDIENCE = 'api://meeting-memory';
const BASE = 'https://memory.example.test:8787';
const TID = randomUUID();
const OID = randomUUID();
const CLIENT = randomUUID();

interface TestKey {
  alg: 'ES256' | 'RS256';
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

async function testKey(alg: 'ES256' | 'RS256'): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { alg, kid, privateKey, publicKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}

function claims(overrides: Record<string, unknown> = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: `${BASE}/${TID}/v2.0`,
    aud: AUDIENCE,
    sub: OID,
    oid: OID,
    tid: TID,
    azp: CLIENT,
    appid: CLIENT,
    roles: [],
    iat: now,
    nbf: now,
    exp: now + 3600,
    ver: '2.0',
    ...overrides,
  };
}

function sign(key: TestKey, payload: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header }).sign(key.privateKey);
}

function withoutClaim(name: string): JWTPayload {
  const payload = claims();
  delete payload[name];
  return payload;
}

async function expectRefused(verifier: TokenVerifier, authorization: string | undefined): Promise<HttpProblem> {
  const error = await verifier.verify(authorization).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(HttpProblem);
  const problem = error as HttpProblem;
  expect(problem.status).toBe(401);
  expect(problem.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  return problem;
}

describe('builtin mode', () => {
  let es: TestKey;
  let rs: TestKey;
  let attacker: TestKey;
  let verifier: TokenVerifier;

  beforeAll(async () => {
    [es, rs, attacker] = await Promise.all([testKey('ES256'), testKey('RS256'), testKey('ES256')]);
    verifier = createTokenVerifier({
      mode: 'builtin',
      issuerBaseUrl: () => `${BASE}/`,
      audience: AUDIENCE,
      keys: { keys: [es.publicJwk, rs.publicJwk] },
    });
  });

  it('accepts a well-formed ES256 or RS256 token and returns the caller from tid, oid, azp and roles', async () => {
    expect(await verifier.verify(`Bearer ${await sign(es, claims({ roles: ['Memory.Admin', 7] }))}`)).toEqual({
      tenantId: TID,
      oid: OID,
      clientId: CLIENT,
      roles: ['Memory.Admin'],
    });
    expect((await verifier.verify(`bearer ${await sign(rs, claims({ azp: undefined }))}`)).clientId).toBe(CLIENT);
  });

  it('tolerates 60 s of clock skew but no more', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expect(verifier.verify(`Bearer ${await sign(es, claims({ exp: now - 30 }))}`)).resolves.toMatchObject({ oid: OID });
    await expect(verifier.verify(`Bearer ${await sign(es, claims({ nbf: now + 30 }))}`)).resolves.toMatchObject({ oid: OID });
  });

  it('refuses a missing header, another scheme, garbage and an empty bearer', async () => {
    const token = await sign(es, claims());
    await expectRefused(verifier, undefined);
    await expectRefused(verifier, '');
    await expectRefused(verifier, `Basic ${token}`);
    await expectRefused(verifier, token);
    await expectRefused(verifier, 'Bearer ');
    await expectRefused(verifier, 'Bearer not-a-jwt');
    await expectRefused(verifier, 'Bearer a.b.c');
    await expectRefused(verifier, `Bearer ${token} ${token}`);
  });

  it('refuses alg none, with or without a signature part', async () => {
    const unsigned = new UnsecuredJWT(claims()).encode();
    await expectRefused(verifier, `Bearer ${unsigned}`);
    const header = base64url.encode(JSON.stringify({ alg: 'none', kid: es.kid, typ: 'JWT' }));
    const [, payload] = unsigned.split('.');
    await expectRefused(verifier, `Bearer ${header}.${payload}.${base64url.encode('sig')}`);
  });

  it('refuses HS256 keyed with the public key (algorithm confusion)', async () => {
    for (const key of [es, rs]) {
      const secret = new TextEncoder().encode(await exportSPKI(key.publicKey));
      const forged = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', kid: key.kid }).sign(secret);
      const problem = await expectRefused(verifier, `Bearer ${forged}`);
      expect(problem.message).toMatch(/RS256 or ES256/);
    }
  });

  it('refuses algorithms other than RS256 and ES256 even from a trusted key', async () => {
    const pssKey = await importJWK({ ...(await exportJWK(rs.privateKey)), alg: 'PS256' }, 'PS256');
    const ps = await new SignJWT(claims()).setProtectedHeader({ alg: 'PS256', kid: rs.kid }).sign(pssKey);
    await expectRefused(verifier, `Bearer ${ps}`);
  });

  it('refuses a token signed by another key under a trusted kid, an unknown kid and no kid', async () => {
    await expectRefused(verifier, `Bearer ${await sign(attacker, claims(), { kid: es.kid })}`);
    const unknown = await expectRefused(verifier, `Bearer ${await sign(attacker, claims())}`);
    expect(unknown.message).toMatch(/key/);
    const noKid = await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256' }).sign(es.privateKey);
    await expectRefused(verifier, `Bearer ${noKid}`);
  });

  it('refuses a tampered payload', async () => {
    const [header, , signature] = (await sign(es, claims())).split('.');
    const payload = base64url.encode(JSON.stringify(claims({ oid: randomUUID() })));
    await expectRefused(verifier, `Bearer ${header}.${payload}.${signature}`);
  });

  it('refuses expired, not yet valid and exp-less tokens', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await expectRefused(verifier, `Bearer ${await sign(es, claims({ exp: now - 120 }))}`)).message).toMatch(
      /expired/,
    );
    expect((await expectRefused(verifier, `Bearer ${await sign(es, claims({ nbf: now + 300 }))}`)).message).toMatch(
      /not valid yet/,
    );
    await expectRefused(verifier, `Bearer ${await sign(es, withoutClaim('exp'))}`);
  });

  it('refuses another audience and a missing audience', async () => {
    await expectRefused(verifier, `Bearer ${await sign(es, claims({ aud: 'api://something-else' }))}`);
    await expectRefused(verifier, `Bearer ${await sign(es, withoutClaim('aud'))}`);
  });

  it('refuses another issuer, an issuer of another tenant, and no issuer', async () => {
    await expectRefused(verifier, `Bearer ${await sign(es, claims({ iss: `https://evil.example.test/${TID}/v2.0` }))}`);
    await expectRefused(verifier, `Bearer ${await sign(es, claims({ iss: `${BASE}/${randomUUID()}/v2.0` }))}`);
    await expectRefused(verifier, `Bearer ${await sign(es, claims({ iss: `${BASE}/${TID}` }))}`);
    await expectRefused(verifier, `Bearer ${await sign(es, withoutClaim('iss'))}`);
  });

  it('refuses missing, empty or non-string oid and tid with the oid/tid detail', async () => {
    const bad = [
      withoutClaim('oid'),
      claims({ oid: '' }),
      claims({ oid: '   ' }),
      claims({ oid: 12345 }),
      claims({ oid: [OID] }),
      withoutClaim('tid'),
      claims({ tid: '' }),
      claims({ tid: 42 }),
      claims({ tid: null }),
    ];
    for (const payload of bad) {
      const problem = await expectRefused(verifier, `Bearer ${await sign(es, payload)}`);
      expect(problem.message).toMatch(/oid and tid/);
    }
  });

  it('refuses a token that names no client', async () => {
    await expectRefused(verifier, `Bearer ${await sign(es, claims({ azp: undefined, appid: undefined }))}`);
  });
});

describe('entra mode', () => {
  const otherTenant = randomUUID();
  let key: TestKey;
  let stranger: TestKey;
  let server: Server;
  let verifier: TokenVerifier;
  let jwksRequests = 0;

  const entraIssuer = (tid: string) => `https://login.example.test/${tid}/v2.0`;

  beforeAll(async () => {
    [key, stranger] = await Promise.all([testKey('RS256'), testKey('RS256')]);
    server = createServer((_request, response) => {
      jwksRequests += 1;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: [key.publicJwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    verifier = createTokenVerifier({
      mode: 'entra',
      audience: AUDIENCE,
      allowedTenants: [TID.toUpperCase(), otherTenant],
      jwksUrl: `http://127.0.0.1:${port}/common/discovery/v2.0/keys`,
      issuerFor: entraIssuer,
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('accepts a token of an allowed tenant signed with a key from the remote JWKS', async () => {
    const token = await sign(key, claims({ iss: entraIssuer(TID) }));
    expect(await verifier.verify(`Bearer ${token}`)).toEqual({ tenantId: TID, oid: OID, clientId: CLIENT, roles: [] });
    expect(jwksRequests).toBe(1);
    const other = await sign(key, claims({ iss: entraIssuer(otherTenant), tid: otherTenant }));
    expect((await verifier.verify(`Bearer ${other}`)).tenantId).toBe(otherTenant);
  });

  it('refuses a tenant that is not allowed, even with a valid signature and matching issuer', async () => {
    const tid = randomUUID();
    const problem = await expectRefused(verifier, `Bearer ${await sign(key, claims({ iss: entraIssuer(tid), tid }))}`);
    expect(problem.message).toMatch(/tenant/);
  });

  it("refuses the built-in issuer's iss, an issuer/tid mismatch and an unknown kid", async () => {
    await expectRefused(verifier, `Bearer ${await sign(key, claims())}`);
    await expectRefused(verifier, `Bearer ${await sign(key, claims({ iss: entraIssuer(otherTenant) }))}`);
    await expectRefused(verifier, `Bearer ${await sign(stranger, claims({ iss: entraIssuer(TID) }))}`);
  });

  it('refuses an expired token and a wrong audience', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(verifier, `Bearer ${await sign(key, claims({ iss: entraIssuer(TID), exp: now - 3600 }))}`);
    await expectRefused(verifier, `Bearer ${await sign(key, claims({ iss: entraIssuer(TID), aud: randomUUID() }))}`);
  });
});
