import { mkdtemp, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignInError } from '../../src/auth/sign-in-error.js';
import { resolveConnection, signInCliError } from '../../src/cli/connection.js';
import { CliError, EXIT } from '../../src/cli/errors.js';
import {
  checkProfileName,
  configDir,
  findProfile,
  profilesFile,
  readProfiles,
  removeProfile,
  saveProfile,
  type Profile,
} from '../../src/cli/profiles.js';
import { createEphemeralTlsMaterial } from '../../src/tls/index.js';

let dir: string;
let env: NodeJS.ProcessEnv;

const profile = (overrides: Partial<Profile> = {}): Profile => ({
  base_url: 'https://core.example:8443/v1',
  authority: 'https://core.example:8443/7d9882ad-80c2-45a1-8174-bd217a1d0ed2',
  client_id: '43bb82c9-3d90-4fa4-9838-4602eef82a77',
  scope: 'api://meeting-memory/.default',
  credential: 'secret',
  storage: 'none',
  signed_in_at: '2025-01-02T03:04:05Z',
  ...overrides,
});

async function failure(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memory-profiles-'));
  env = { XDG_CONFIG_HOME: join(dir, 'config') };
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the config dir', () => {
  it('is XDG_CONFIG_HOME when set, else the OS convention', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/x' }, 'darwin')).toBe(join('/x', 'meeting-memory'));
    expect(configDir({}, 'linux')).toBe(join(homedir(), '.config', 'meeting-memory'));
    expect(configDir({}, 'darwin')).toBe(join(homedir(), 'Library', 'Application Support', 'meeting-memory'));
    expect(configDir({ APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, 'win32')).toBe(join('C:\\Users\\a\\AppData\\Roaming', 'meeting-memory'));
  });
});

describe('profiles.json', () => {
  it('saves, finds, lists and removes profiles, in a 0600 file', async () => {
    await saveProfile('work', profile(), env);
    await saveProfile('home', profile({ deployment: 'd1' }), env);
    expect(await findProfile('work', env)).toEqual(profile());
    expect(Object.keys(await readProfiles(env))).toEqual(['work', 'home']);
    expect((await stat(profilesFile(env))).mode & 0o777).toBe(0o600);
    expect(await removeProfile('home', env)).toBe(true);
    expect(await removeProfile('home', env)).toBe(false);
    expect(await findProfile('home', env)).toBeUndefined();
    expect(await findProfile('constructor', env)).toBeUndefined();
  });

  it('refuses names that are not file- and keychain-safe', () => {
    expect(checkProfileName('demo-reader_2.x')).toBe('demo-reader_2.x');
    for (const bad of ['', '../x', 'a/b', 'with space', '-dash', 'x'.repeat(65)]) {
      expect(() => checkProfileName(bad)).toThrow(CliError);
    }
  });

  it('says so when the file is damaged', async () => {
    const damaged = { XDG_CONFIG_HOME: join(dir, 'damaged') };
    await mkdir(join(dir, 'damaged', 'meeting-memory'), { recursive: true });
    await writeFile(profilesFile(damaged), '{"version":1,"profiles":{"x":{"base_url":1}}}');
    const error = await failure(readProfiles(damaged));
    expect(error.message).toContain('is damaged');
  });
});

describe('resolveConnection with profiles', () => {
  it('takes the core, CA and deployment from the profile; flags and the environment override them', async () => {
    const caFile = join(dir, 'ca.pem');
    const { ca } = createEphemeralTlsMaterial(['127.0.0.1']);
    await writeFile(caFile, ca);
    await saveProfile('lab', profile({ ca_file: caFile, deployment: 'd-profile' }), env);
    const connection = await resolveConnection({ profile: 'lab' }, { ...env, MEMORY_TOKEN: 'env-token' });
    expect(connection).toMatchObject({ baseUrl: 'https://core.example:8443/v1', ca, defaultDeployment: 'd-profile' });
    expect(connection.token()).toBe('env-token');
    const overridden = await resolveConnection({ profile: 'lab', deployment: 'd-flag' }, { ...env, MEMORY_TOKEN: 't', MEMORY_DEPLOYMENT: 'd-env' });
    expect(overridden.defaultDeployment).toBe('d-flag');
    expect((await resolveConnection({ profile: 'lab' }, { ...env, MEMORY_TOKEN: 't', MEMORY_DEPLOYMENT: 'd-env' })).defaultDeployment).toBe('d-env');
  });

  it('uses the default profile when neither an address nor a profile is given', async () => {
    const fresh = { XDG_CONFIG_HOME: join(dir, 'fresh') };
    expect((await failure(resolveConnection({}, fresh))).hint).toContain('MEMORY_BASE_URL and MEMORY_TOKEN');
    await saveProfile('default', profile({ base_url: 'https://default.example/v1' }), fresh);
    expect((await resolveConnection({}, { ...fresh, MEMORY_TOKEN: 't' })).baseUrl).toBe('https://default.example/v1');
    // An address in the environment still means the environment's connection.
    expect((await resolveConnection({}, { ...fresh, MEMORY_BASE_URL: 'https://env.example/v1', MEMORY_TOKEN: 't' })).baseUrl).toBe('https://env.example/v1');
  });

  it("signs in on the first token call, reporting a profile that cannot sign in as exit 4", async () => {
    await saveProfile('nosecret', profile(), env);
    const connection = await resolveConnection({ profile: 'nosecret' }, env);
    const error = await failure(Promise.resolve(connection.token()));
    expect(error.exitCode).toBe(EXIT.auth);
    expect(error.message).toContain('No client secret for profile "nosecret"');
    expect(error.hint).toContain('MEMORY_CLIENT_SECRET');
  });

  it('maps sign-in failures to the exit codes: auth 4, network 1, usage 2', () => {
    expect((signInCliError(new SignInError('auth', 'a')) as CliError).exitCode).toBe(EXIT.auth);
    expect((signInCliError(new SignInError('network', 'n', 'h')) as CliError)).toMatchObject({ exitCode: EXIT.error, hint: 'h' });
    expect((signInCliError(new SignInError('usage', 'u')) as CliError).exitCode).toBe(EXIT.usage);
    const other = new Error('x');
    expect(signInCliError(other)).toBe(other);
  });
});
