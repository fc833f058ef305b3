import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileStore } from '../../src/auth/credential-store.js';
import { SignInError } from '../../src/auth/sign-in-error.js';
import { readCachedToken, tenantOfAuthority, usableCachedToken } from '../../src/auth/token-cache.js';
import { createTokenSource, type ProfileSignIn } from '../../src/auth/token-source.js';
import { startDemoCore, type TestCore } from '../helpers/core.js';

const TENANT = '7d9882ad-80c2-45a1-8174-bd217a1d0ed2';
const CLIENT = '43bb82c9-3d90-4fa4-9838-4602eef82a77';
const SCOPE = 'api://meeting-memory/.default';

/** A token cache as msal-node serializes it after a client-credentials sign-in (one access token). */
function serializedCache(options: { secret: string; expiresIn: number; clientId?: string; tenant?: string; target?: string; refreshIn?: number }): string {
  const now = Math.floor(Date.now() / 1000);
  const clientId = options.clientId ?? CLIENT;
  const realm = options.tenant ?? TENANT;
  const target = options.target ?? SCOPE;
  return JSON.stringify({
    Account: {},
    IdToken: {},
    AccessToken: {
      [`-127.0.0.1:9-accesstoken-${clientId}-${realm}-${target}-`]: {
        home_account_id: '',
        environment: '127.0.0.1:9',
        credential_type: 'AccessToken',
        client_id: clientId,
        secret: options.secret,
        realm,
        target,
        cached_at: String(now),
        expires_on: String(now + options.expiresIn),
        extended_expires_on: String(now + options.expiresIn * 2),
        ...(options.refreshIn === undefined ? {} : { refresh_on: String(now + options.refreshIn) }),
        token_type: 'Bearer',
      },
    },
    RefreshToken: {},
    AppMetadata: {},
  });
}

describe('reading MSAL\'s token cache', () => {
  const match = { clientId: CLIENT, tenantId: TENANT, scope: SCOPE };

  it('finds the profile\'s token by client, tenant and scope, case-insensitively', () => {
    const cache = serializedCache({ secret: 'tok', expiresIn: 3600, target: 'API://Meeting-Memory/.default' });
    expect(readCachedToken(cache, match)).toMatchObject({ accessToken: 'tok' });
    expect(readCachedToken(cache, { ...match, clientId: CLIENT.toUpperCase() })).toMatchObject({ accessToken: 'tok' });
    expect(readCachedToken(cache, { ...match, tenantId: 'other' })).toBeUndefined();
    expect(readCachedToken(cache, { ...match, clientId: 'other' })).toBeUndefined();
    expect(readCachedToken(cache, { ...match, scope: 'api://else/.default' })).toBeUndefined();
    expect(readCachedToken('not json', match)).toBeUndefined();
    expect(readCachedToken(undefined, match)).toBeUndefined();
  });

  it('hands a cached token out only while MSAL would: over five minutes from expiry and before refresh_on', () => {
    expect(usableCachedToken(serializedCache({ secret: 'tok', expiresIn: 3600 }), match)?.accessToken).toBe('tok');
    expect(usableCachedToken(serializedCache({ secret: 'tok', expiresIn: 200 }), match)).toBeUndefined();
    expect(usableCachedToken(serializedCache({ secret: 'tok', expiresIn: 3600, refreshIn: -1 }), match)).toBeUndefined();
    expect(readCachedToken(serializedCache({ secret: 'tok', expiresIn: 200 }), match)?.expiresOn.getTime()).toBeGreaterThan(Date.now());
  });

  it('takes the tenant from the authority', () => {
    expect(tenantOfAuthority(`https://login.microsoftonline.com/${TENANT}`)).toBe(TENANT);
    expect(tenantOfAuthority(`https://127.0.0.1:8787/${TENANT.toUpperCase()}/`)).toBe(TENANT);
  });
});

describe('createTokenSource', () => {
  let dir: string;
  let core: TestCore;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memory-token-source-'));
    core = await startDemoCore({ tls: { mode: 'generate' } });
  }, 120_000);

  afterAll(async () => {
    await core?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function unreachable(name: string, storage: ProfileSignIn['storage'] = 'file'): ProfileSignIn {
    return {
      profile: name,
      authority: `https://127.0.0.1:9/${TENANT}`,
      clientId: CLIENT,
      scope: SCOPE,
      credential: { kind: 'secret' },
      storage,
      credentialsFile: join(dir, `${name}.json`),
    };
  }

  function demoWriter(name: string): ProfileSignIn {
    const writer = core.creds.principals[1]!;
    return {
      profile: name,
      authority: core.creds.authority,
      clientId: writer.client_id,
      scope: writer.scope,
      caFile: core.creds.ca_file!,
      credential: { kind: 'secret' },
      storage: 'file',
      credentialsFile: join(dir, `${name}.json`),
    };
  }

  it('serves a fresh cached token from the store without going to the issuer', async () => {
    const signIn = unreachable('cached');
    await fileStore(signIn.credentialsFile).set('cached', 'token-cache', serializedCache({ secret: 'cached-token', expiresIn: 3600 }));
    const token = createTokenSource(signIn, {});
    expect(await token()).toBe('cached-token');
    expect(await token()).toBe('cached-token');
  });

  it('goes to the issuer through MSAL when the cached token is due for renewal', async () => {
    const signIn = unreachable('stale');
    const store = fileStore(signIn.credentialsFile);
    await store.set('stale', 'token-cache', serializedCache({ secret: 'old', expiresIn: 120 }));
    await store.set('stale', 'client-secret', 'secret');
    const error = await createTokenSource(signIn, {})().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SignInError);
    expect((error as SignInError).kind).toBe('network');
  });

  it('signs in with the stored secret, shares one renewal between concurrent calls, and caches the token', async () => {
    const signIn = demoWriter('live');
    const store = fileStore(signIn.credentialsFile);
    await store.set('live', 'client-secret', core.creds.principals[1]!.client_secret);
    const token = createTokenSource(signIn, {});
    const tokens = await Promise.all([token(), token(), token()]);
    expect(new Set(tokens).size).toBe(1);
    const cache = await store.get('live', 'token-cache');
    expect(Object.keys(JSON.parse(cache!).AccessToken)).toHaveLength(1);
    expect(usableCachedToken(cache, { clientId: signIn.clientId, tenantId: core.creds.tenant_id, scope: signIn.scope })?.accessToken).toBe(tokens[0]);
  });

  it('prefers MEMORY_CLIENT_SECRET, and says how to sign in when there is no secret at all', async () => {
    const signIn = demoWriter('envsecret');
    const missing = await createTokenSource(signIn, {})().catch((caught: unknown) => caught);
    expect(missing).toMatchObject({ kind: 'auth', hint: expect.stringContaining('memory login --profile envsecret') });
    await fileStore(signIn.credentialsFile).set('envsecret', 'client-secret', 'stale-secret');
    const token = await createTokenSource(signIn, { MEMORY_CLIENT_SECRET: core.creds.principals[1]!.client_secret })();
    expect(token.split('.')).toHaveLength(3);
  });

  it('without a reachable keychain fails with the fallbacks, or signs in for this process from MEMORY_CLIENT_SECRET', async () => {
    const signIn = { ...demoWriter('keychain'), storage: 'keychain' as const };
    const noKeychain = { MEMORY_NO_KEYCHAIN: '1' };
    const error = await createTokenSource(signIn, noKeychain)().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'auth', message: expect.stringContaining('no usable keychain') });
    expect((error as SignInError).hint).toContain('--insecure-storage');
    const token = await createTokenSource(signIn, { ...noKeychain, MEMORY_CLIENT_SECRET: core.creds.principals[1]!.client_secret })();
    expect(token.split('.')).toHaveLength(3);
  });

  it('reports an unreadable CA file as a usage error naming it', async () => {
    const signIn = { ...demoWriter('badca'), caFile: join(dir, 'absent-ca.pem') };
    await fileStore(signIn.credentialsFile).set('badca', 'client-secret', 'x');
    const error = await createTokenSource(signIn, {})().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'usage', message: expect.stringContaining('absent-ca.pem') });
  });
});
