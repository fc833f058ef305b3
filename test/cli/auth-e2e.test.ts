import { createServer, type Server } from 'node:net';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, jwtClaims, runMemoryProcess, type CliRun } from '../auth/cli-process.js';
import { startDemoCore, type TestCore } from '../helpers/core.js';

// End to end: the built `memory login`, `auth status`, `auth token`, `logout` and the memory commands that use the
// profiles, as child processes (never on a terminal) against a real core over TLS with its built-in issuer and the
// real MSAL. The OS keychain is turned off (MEMORY_NO_KEYCHAIN) or made unreachable here, so these never touch the
// developer's keychain; test/auth/keychain-real.test.ts covers a real one.

let core: TestCore;
let scratch: string;
let writer: TestCore['creds']['principals'][number];
let atlas: string;
let origin: string;

async function freshConfig(): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(scratch, 'config-'));
  return { HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), MEMORY_NO_KEYCHAIN: '1', NO_COLOR: '1' };
}

function memory(args: string[], env: Record<string, string | undefined>, input?: string | 'open'): Promise<CliRun> {
  return runMemoryProcess(args, { env, input });
}

function loginArgs(extra: string[] = []): string[] {
  return ['login', '--base-url', core.creds.base_url, '--tenant', core.creds.tenant_id, '--client-id', writer.client_id, '--ca-file', core.creds.ca_file!, ...extra];
}

async function readJson<T = Record<string, unknown>>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

type Credentials = { profiles: Record<string, { 'client-secret'?: string; 'token-cache'?: string }> };

beforeAll(async () => {
  await ensureBuilt();
  scratch = await mkdtemp(join(tmpdir(), 'memory-auth-e2e-'));
  core = await startDemoCore({ tls: { mode: 'generate' } });
  writer = core.creds.principals[1]!;
  atlas = writer.grants[0]!.deployment_id;
  origin = new URL(core.creds.base_url).origin;
}, 120_000);

afterAll(async () => {
  await core?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('memory login with --insecure-storage, then status, token and logout', () => {
  let env: Record<string, string>;
  let credentialsFile: string;

  beforeAll(async () => {
    env = await freshConfig();
    credentialsFile = join(env.XDG_CONFIG_HOME!, 'meeting-memory', 'credentials.json');
  });

  it('signs in with MSAL against the built-in issuer, keeps the secret in a 0600 file and warns', async () => {
    const run = await memory(loginArgs(['--profile', 'work', '--client-secret-stdin', '--insecure-storage']), env, `${writer.client_secret}\n`);
    expect(run.stderr).toContain('Signed in: profile "work"');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/warning: the client secret and tokens are stored unencrypted in .*credentials\.json \(mode 0600\)/);
    expect(run.stderr).toContain(`Atlas (${atlas}, read_write)`);
    expect((await stat(credentialsFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(env.XDG_CONFIG_HOME!, 'meeting-memory'))).mode & 0o777).toBe(0o700);
    const stored = await readJson<Credentials>(credentialsFile);
    expect(stored.profiles.work?.['client-secret']).toBe(writer.client_secret);
    expect(stored.profiles.work?.['token-cache']).toContain('"AccessToken"');
    const profilesText = await readFile(join(env.XDG_CONFIG_HOME!, 'meeting-memory', 'profiles.json'), 'utf8');
    expect(profilesText).not.toContain(writer.client_secret);
    // The core says it has a built-in issuer, so the authority is the core's own, not Entra ID's.
    expect(JSON.parse(profilesText).profiles.work).toMatchObject({ authority: `${origin}/${core.creds.tenant_id}`, storage: 'file', credential: 'secret' });
  });

  it('auth status shows the profile, the token expiry and where the secret is, and repeats the warning', async () => {
    const run = await memory(['auth', 'status', '--profile', 'work'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(writer.client_id);
    expect(run.stdout).toContain(`${origin}/${core.creds.tenant_id} (the core's built-in issuer)`);
    expect(run.stdout).toMatch(/Token:\s+valid until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    expect(run.stdout).toContain('credentials.json');
    expect(run.stderr).toContain('warning: the client secret and tokens are stored unencrypted');
    const json = JSON.parse((await memory(['auth', 'status', '--profile', 'work', '--json'], env)).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ profile: 'work', client_id: writer.client_id, storage: 'file', secret: 'stored', issuer: 'builtin' });
  });

  it('auth token prints the cached token for scripts, and memory commands use the profile', async () => {
    const first = await memory(['auth', 'token', '--profile', 'work'], env);
    expect(first.code).toBe(0);
    const token = first.stdout.trim();
    expect(jwtClaims(token)).toMatchObject({ azp: writer.client_id, tid: core.creds.tenant_id, aud: 'api://meeting-memory' });
    expect((await memory(['auth', 'token', '--profile', 'work'], env)).stdout.trim()).toBe(token);
    const list = await memory(['deployments', 'list', '--profile', 'work', '--json'], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).items).toEqual([expect.objectContaining({ id: atlas, access: 'read_write' })]);
  });

  it('renews an expired token silently through MSAL and writes the new one back to the cache', async () => {
    const stored = await readJson<Credentials>(credentialsFile);
    const cache = JSON.parse(stored.profiles.work!['token-cache']!) as { AccessToken: Record<string, { expires_on: string; secret: string }> };
    const [entry] = Object.values(cache.AccessToken);
    const old = entry!.secret;
    entry!.expires_on = String(Math.floor(Date.now() / 1000) - 60);
    stored.profiles.work!['token-cache'] = JSON.stringify(cache);
    await writeFile(credentialsFile, JSON.stringify(stored), { mode: 0o600 });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const run = await memory(['decisions', 'list', '--profile', 'work', '--json', '--limit', '1'], env);
    expect(run.code).toBe(0);
    const renewed = await readJson<Credentials>(credentialsFile);
    const [fresh] = Object.values((JSON.parse(renewed.profiles.work!['token-cache']!) as typeof cache).AccessToken);
    expect(fresh!.secret).not.toBe(old);
    expect(Number(fresh!.expires_on) * 1000).toBeGreaterThan(Date.now() + 30 * 60_000);
  });

  it('logout removes the secret and the token cache; afterwards the profile is an auth error (exit 4)', async () => {
    const run = await memory(['logout', '--profile', 'work'], env);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Signed out of profile "work"');
    expect((await readJson<Credentials>(credentialsFile)).profiles.work).toBeUndefined();
    const status = await memory(['auth', 'status', '--profile', 'work'], env);
    expect(status.code).toBe(4);
    expect(status.stderr).toContain('memory login --profile work');
    const list = await memory(['decisions', 'list', '--profile', 'work'], env);
    expect(list.code).toBe(4);
    expect(list.stderr).toContain('No client secret for profile "work"');
    expect(list.stderr).toContain('MEMORY_CLIENT_SECRET');
  });

  it('MEMORY_TOKEN stands in for the profile\'s own sign-in', async () => {
    const withSecret = { ...env, MEMORY_CLIENT_SECRET: writer.client_secret };
    expect((await memory(loginArgs(['--profile', 'envtok']), withSecret)).code).toBe(0);
    const issued = (await memory(['auth', 'token', '--profile', 'envtok'], withSecret)).stdout.trim();
    // Without MEMORY_CLIENT_SECRET this profile cannot sign in itself; the token from the environment is used.
    const run = await memory(['topics', 'list', '--profile', 'envtok', '--json'], { ...env, MEMORY_TOKEN: issued });
    expect(run.code).toBe(0);
    const refused = await memory(['topics', 'list', '--profile', 'envtok'], { ...env, MEMORY_TOKEN: `${issued.slice(0, -4)}AAAA` });
    expect(refused.code).toBe(4);
  });
});

describe('without a keychain', () => {
  it('refuses to keep a secret without --insecure-storage (exit 4), saving nothing', async () => {
    const env = await freshConfig();
    const run = await memory(loginArgs(['--client-secret-stdin']), env, writer.client_secret);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('No usable OS keychain to keep the client secret in');
    expect(run.stderr).toContain('--insecure-storage');
    expect(run.stderr).toContain('MEMORY_CLIENT_SECRET');
    await expect(stat(join(env.XDG_CONFIG_HOME!, 'meeting-memory', 'profiles.json'))).rejects.toThrow(/ENOENT/);
  });

  it('signs in from MEMORY_CLIENT_SECRET without storing it, and commands need it in the environment', async () => {
    const env: Record<string, string | undefined> = { ...(await freshConfig()), MEMORY_CLIENT_SECRET: writer.client_secret };
    const run = await memory(loginArgs(), env);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('the client secret was not stored: it comes from MEMORY_CLIENT_SECRET');
    expect(run.stderr).toContain('tokens are not cached between commands');
    await expect(stat(join(env.XDG_CONFIG_HOME!, 'meeting-memory', 'credentials.json'))).rejects.toThrow(/ENOENT/);
    const profiles = await readJson<{ profiles: Record<string, Record<string, unknown>> }>(join(env.XDG_CONFIG_HOME!, 'meeting-memory', 'profiles.json'));
    expect(profiles.profiles.default).toMatchObject({ storage: 'none', client_id: writer.client_id });
    // No profile named and no address: the default profile is used.
    const list = await memory(['decisions', 'list', '--json', '--limit', '1'], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).items[0].deployment_id).toBe(atlas);
    const without = await memory(['decisions', 'list'], { ...env, MEMORY_CLIENT_SECRET: undefined });
    expect(without.code).toBe(4);
    expect(without.stderr).toContain('MEMORY_CLIENT_SECRET');
  });

  it('never prompts when stdin is not a terminal: exit 4 at once, saying how to pass the secret', async () => {
    const env = await freshConfig();
    const run = await memory(loginArgs(['--insecure-storage']), env, 'open');
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('No client secret given, and stdin is not a terminal');
    expect(run.stderr).toContain('--client-secret-stdin');
    expect(run.ms).toBeLessThan(20_000);
  });

  it('gives up on a D-Bus session bus that never answers within the keychain timeout', async () => {
    const socket = join(scratch, 'hung-bus.sock');
    const hung: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => hung.listen(socket, resolve));
    try {
      const env = { ...(await freshConfig()), MEMORY_NO_KEYCHAIN: undefined, DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket}`, MEMORY_KEYCHAIN_TIMEOUT_MS: '400' };
      const run = await memory(loginArgs(['--client-secret-stdin']), env, writer.client_secret);
      expect(run.code).toBe(4);
      expect(run.stderr).toContain('did not answer within 400 ms');
      expect(run.ms).toBeLessThan(15_000);
    } finally {
      hung.close();
    }
  });
});

describe('sign-in failures', () => {
  it('a wrong secret is refused by the issuer: exit 4, nothing saved', async () => {
    const env = await freshConfig();
    const run = await memory(loginArgs(['--client-secret-stdin', '--insecure-storage']), env, 'not-the-secret');
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('refused the sign-in (invalid_client)');
    expect(run.stderr).toContain('memory login');
    await expect(stat(join(env.XDG_CONFIG_HOME!, 'meeting-memory', 'profiles.json'))).rejects.toThrow(/ENOENT/);
  });

  it('without the core\'s CA the issuer is not trusted: exit 1 naming --ca-file', async () => {
    const env = await freshConfig();
    const args = ['login', '--base-url', core.creds.base_url, '--authority', core.creds.authority, '--client-id', writer.client_id, '--client-secret-stdin', '--insecure-storage'];
    const run = await memory(args, env, writer.client_secret);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/certificate/i);
    expect(run.stderr).toContain('--ca-file');
  });

  it('a tenant the issuer does not serve is an auth error naming --tenant', async () => {
    const env = await freshConfig();
    const args = ['login', '--base-url', core.creds.base_url, '--authority', `${origin}/00000000-0000-4000-8000-000000000000`, '--ca-file', core.creds.ca_file!];
    const run = await memory([...args, '--client-id', writer.client_id, '--client-secret-stdin', '--insecure-storage'], env, writer.client_secret);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('not served by this issuer');
    expect(run.stderr).toContain('--tenant');
  });

  it('a missing client id or an unknown profile is a usage or auth error', async () => {
    const env = await freshConfig();
    const missing = await memory(['login', '--base-url', core.creds.base_url, '--tenant', core.creds.tenant_id], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--client-id');
    const unknown = await memory(['decisions', 'list', '--profile', 'nobody'], env);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('memory login --profile nobody');
    expect((await memory(['auth', 'token', '--profile', 'nobody'], env)).code).toBe(4);
  });
});

describe('memory login --demo', () => {
  it('creates ready profiles for the demo principals of a core\'s demo-credentials.json', async () => {
    const env = await freshConfig();
    const run = await memory(['login', '--demo', '--data-dir', core.dataDir, '--insecure-storage'], env);
    expect(run.code).toBe(0);
    for (const name of ['demo-reader', 'demo-writer', 'demo-reader-juniper']) expect(run.stderr).toContain(name);
    expect(run.stderr).toContain('Try: memory decisions list --profile demo-reader');
    const juniper = core.creds.deployments[1]!.id;
    const list = await memory(['topics', 'list', '--profile', 'demo-reader-juniper', '--json'], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).items.every((item: { deployment_id: string }) => item.deployment_id === juniper)).toBe(true);
    const status = JSON.parse((await memory(['auth', 'status', '--profile', 'demo-writer', '--json'], env)).stdout) as Record<string, unknown>;
    expect(status).toMatchObject({ client_id: writer.client_id, deployment: atlas, secret: 'stored' });
  });

  it('takes its settings from the file only', async () => {
    const run = await memory(['login', '--demo', '--profile', 'x'], await freshConfig());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--demo takes --profile from the demo credentials file');
    const none = await memory(['login', '--demo', '--data-dir', scratch], await freshConfig());
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('memory serve --demo');
  });
});
