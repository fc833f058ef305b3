import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateThumbprint, normalizeThumbprint, readCertificateCredential } from '../../src/auth/certificate.js';
import { isMicrosoftAuthority } from '../../src/auth/authority.js';
import { acquireTokenWithMsal, msalConfiguration, type CachePersistence, type MsalSignIn } from '../../src/auth/msal-sign-in.js';
import { createMsalNetworkClient } from '../../src/auth/network-client.js';
import { SignInError } from '../../src/auth/sign-in-error.js';
import { createEphemeralTlsMaterial } from '../../src/tls/index.js';
import { startDemoCore, type TestCore } from '../helpers/core.js';
import { jwtClaims } from './cli-process.js';

// The real @azure/msal-node against a real core's built-in issuer over TLS, and, for certificate credentials (which
// only Entra ID accepts), against a stand-in for Entra's token endpoint that verifies MSAL's signed client assertion.

let core: TestCore;
let ca: string;
let scratch: string;

function memoryPersistence(): CachePersistence & { saved: () => string | undefined } {
  let saved: string | undefined;
  return { load: async () => saved, save: async (value) => void (saved = value), saved: () => saved };
}

function secretSignIn(secret: string, overrides: Partial<MsalSignIn> = {}): MsalSignIn {
  const writer = core.creds.principals[1]!;
  return { authority: core.creds.authority, clientId: writer.client_id, scope: writer.scope, ca, credential: { kind: 'secret', secret }, ...overrides };
}

async function failure(promise: Promise<unknown>): Promise<SignInError> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(SignInError);
  return error as SignInError;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'memory-msal-'));
  core = await startDemoCore({ tls: { mode: 'generate' } });
  ca = await readFile(core.creds.ca_file!, 'utf8');
}, 120_000);

afterAll(async () => {
  await core?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('acquireTokenWithMsal against the built-in issuer', () => {
  it('gets a token by client credentials and persists MSAL\'s cache, which then answers without asking the issuer', async () => {
    const writer = core.creds.principals[1]!;
    const persistence = memoryPersistence();
    const token = await acquireTokenWithMsal(secretSignIn(writer.client_secret), persistence);
    expect(jwtClaims(token.accessToken)).toMatchObject({ azp: writer.client_id, tid: core.creds.tenant_id, aud: 'api://meeting-memory' });
    expect(token.expiresOn.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(persistence.saved()).toContain(token.accessToken);
    // A wrong secret would be refused by the issuer, so the same token coming back shows it came from the cache.
    const cached = await acquireTokenWithMsal(secretSignIn('wrong'), persistence);
    expect(cached.accessToken).toBe(token.accessToken);
  });

  it('reports a refused secret as an auth failure that says what to check', async () => {
    const error = await failure(acquireTokenWithMsal(secretSignIn('wrong'), memoryPersistence()));
    expect(error.kind).toBe('auth');
    expect(error.message).toContain('refused the sign-in (invalid_client)');
    expect(error.hint).toContain('memory login');
  });

  it('reports an issuer it cannot trust as a network failure pointing at --ca-file, and an unknown tenant as auth', async () => {
    const writer = core.creds.principals[1]!;
    const untrusted = await failure(acquireTokenWithMsal(secretSignIn(writer.client_secret, { ca: undefined }), memoryPersistence()));
    expect(untrusted.kind).toBe('network');
    expect(untrusted.hint).toContain('--ca-file');
    const origin = new URL(core.creds.authority).origin;
    const tenant = await failure(
      acquireTokenWithMsal(secretSignIn(writer.client_secret, { authority: `${origin}/11111111-1111-4111-8111-111111111111` }), memoryPersistence()),
    );
    expect(tenant.kind).toBe('auth');
    expect(tenant.message).toContain('not served by this issuer');
  });
});

describe('msalConfiguration', () => {
  const persistence = memoryPersistence();
  const network = createMsalNetworkClient();

  afterAll(() => network.close());

  it('names another issuer than Microsoft in knownAuthorities, and leaves Entra ID to instance discovery', () => {
    const builtin = msalConfiguration(secretSignIn('s', { authority: 'https://127.0.0.1:8787/t1' }), persistence, network);
    expect(builtin.auth).toMatchObject({ authority: 'https://127.0.0.1:8787/t1', knownAuthorities: ['127.0.0.1:8787'], clientSecret: 's' });
    const entra = msalConfiguration(secretSignIn('s', { authority: 'https://login.microsoftonline.com/t1' }), persistence, network);
    expect(entra.auth.knownAuthorities).toBeUndefined();
    expect(isMicrosoftAuthority('https://login.microsoftonline.us/t1')).toBe(true);
    expect(isMicrosoftAuthority('https://memory.example.com/t1')).toBe(false);
  });
});

describe('certificate credentials', () => {
  let issuer: Server;
  let issuerCa: string;
  let authority: string;
  let certificateFile: string;
  let keyFile: string;
  const assertions: { header: Record<string, unknown>; claims: Record<string, unknown> }[] = [];
  const clientId = '6f1c1c39-3f6e-4b53-9b43-0d7a4c1c2f10';

  beforeAll(async () => {
    // Entra ID wants an RSA certificate; openssl makes one as an admin would.
    certificateFile = join(scratch, 'app.pem');
    keyFile = join(scratch, 'app.key');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certificateFile, '-days', '2', '-subj', '/CN=memory-test-app'], { stdio: 'ignore' });
    const publicKey = await importX509(await readFile(certificateFile, 'utf8'), 'PS256');
    const tls = createEphemeralTlsMaterial(['127.0.0.1']);
    issuerCa = tls.ca;
    issuer = createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', async () => {
        const tenantBase = authority;
        response.setHeader('content-type', 'application/json');
        if (request.method === 'GET') {
          return void response.end(
            JSON.stringify({
              issuer: `${tenantBase}/v2.0`,
              token_endpoint: `${tenantBase}/oauth2/v2.0/token`,
              authorization_endpoint: `${tenantBase}/oauth2/v2.0/authorize`,
              jwks_uri: `${tenantBase}/discovery/v2.0/keys`,
            }),
          );
        }
        const form = new URLSearchParams(body);
        try {
          const assertion = form.get('client_assertion') ?? '';
          const { payload } = await jwtVerify(assertion, publicKey, { issuer: clientId, subject: clientId, clockTolerance: 300 });
          assertions.push({ header: decodeProtectedHeader(assertion) as Record<string, unknown>, claims: payload as Record<string, unknown> });
          response.end(JSON.stringify({ token_type: 'Bearer', expires_in: 3600, access_token: 'token-for-the-certificate' }));
        } catch (error) {
          response.statusCode = 401;
          response.end(JSON.stringify({ error: 'invalid_client', error_description: String(error) }));
        }
      });
    });
    await new Promise<void>((resolve) => issuer.listen(0, '127.0.0.1', resolve));
    authority = `https://127.0.0.1:${(issuer.address() as AddressInfo).port}/7a1c1c39-3f6e-4b53-9b43-0d7a4c1c2f11`;
  });

  afterAll(() => new Promise((resolve) => issuer.close(resolve)));

  it('computes the SHA-256 thumbprint and accepts thumbprints as typed', async () => {
    const pem = await readFile(certificateFile, 'utf8');
    expect(certificateThumbprint(pem)).toBe(new X509Certificate(pem).fingerprint256.replaceAll(':', ''));
    expect(normalizeThumbprint('abcd')).toBeUndefined();
    expect(normalizeThumbprint(` ${'a1'.repeat(20)} `)).toBe('A1'.repeat(20));
    const byThumbprint = await readCertificateCredential({ privateKeyFile: keyFile, thumbprint: 'b2'.repeat(32) });
    expect(byThumbprint).toMatchObject({ thumbprintSha256: 'B2'.repeat(32) });
    await expect(readCertificateCredential({ privateKeyFile: keyFile })).rejects.toMatchObject({ kind: 'usage', hint: expect.stringContaining('--certificate') });
    await expect(readCertificateCredential({ privateKeyFile: join(scratch, 'absent.key'), certificateFile })).rejects.toMatchObject({ kind: 'usage' });
    const encrypted = join(scratch, 'encrypted.key');
    execFileSync('openssl', ['pkey', '-in', keyFile, '-aes256', '-passout', 'pass:x', '-out', encrypted], { stdio: 'ignore' });
    await expect(readCertificateCredential({ privateKeyFile: encrypted, certificateFile })).rejects.toMatchObject({ message: expect.stringContaining('encrypted') });
  });

  it('signs the client assertion with the key, naming the certificate by thumbprint and chain', async () => {
    const credential = await readCertificateCredential({ certificateFile, privateKeyFile: keyFile });
    const token = await acquireTokenWithMsal(
      { authority, clientId, scope: 'api://meeting-memory/.default', ca: issuerCa, credential: { kind: 'certificate', ...credential } },
      memoryPersistence(),
    );
    expect(token.accessToken).toBe('token-for-the-certificate');
    const [assertion] = assertions;
    const der = new X509Certificate(await readFile(certificateFile, 'utf8')).raw;
    expect(assertion!.header).toMatchObject({ alg: 'PS256', 'x5t#S256': createHash('sha256').update(der).digest('base64url') });
    expect(assertion!.header.x5c).toEqual([der.toString('base64')]);
    expect(assertion!.claims.aud).toBe(`${authority}/oauth2/v2.0/token`);
  });
});

describe('certificate files on disk', () => {
  it('are read as PEM and kept as PKCS#8', async () => {
    const file = join(scratch, 'pkcs1.key');
    execFileSync('openssl', ['genrsa', '-traditional', '-out', file, '2048'], { stdio: 'ignore' });
    const credential = await readCertificateCredential({ privateKeyFile: file, thumbprint: 'c3'.repeat(32) });
    expect(credential.privateKey).toContain('-----BEGIN PRIVATE KEY-----');
  });
});
