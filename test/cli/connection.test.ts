import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConnection } from '../../src/cli/connection.js';
import { CliError, EXIT } from '../../src/cli/errors.js';
import { createEphemeralTlsMaterial } from '../../src/tls/index.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memory-connection-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe('resolveConnection', () => {
  it('reads the address, token, CA and default deployment from the environment', async () => {
    const caFile = join(dir, 'ca.pem');
    const { ca } = createEphemeralTlsMaterial(['127.0.0.1']);
    await writeFile(caFile, ca);
    const connection = await resolveConnection(
      {},
      { MEMORY_BASE_URL: 'https://core:8443/v1', MEMORY_TOKEN: 'tok', MEMORY_CA_FILE: caFile, MEMORY_DEPLOYMENT: 'd1' },
    );
    expect(connection.baseUrl).toBe('https://core:8443/v1');
    expect(connection.token()).toBe('tok');
    expect(connection.ca).toBe(ca);
    expect(connection.defaultDeployment).toBe('d1');
  });

  it('lets flags win over the environment', async () => {
    const connection = await resolveConnection(
      { baseUrl: 'http://127.0.0.1:9/v1', deployment: 'd2' },
      { MEMORY_BASE_URL: 'https://elsewhere/v1', MEMORY_TOKEN: 'tok', MEMORY_DEPLOYMENT: 'd1' },
    );
    expect(connection.baseUrl).toBe('http://127.0.0.1:9/v1');
    expect(connection.defaultDeployment).toBe('d2');
    expect(connection.ca).toBeUndefined();
  });

  it('is an auth error (exit 4) saying how to sign in when the address or token is missing', async () => {
    for (const env of [{}, { MEMORY_BASE_URL: 'https://core/v1' }, { MEMORY_TOKEN: 'tok' }, { MEMORY_TOKEN: '  ' }]) {
      const error = await failure(resolveConnection({}, env));
      expect(error.exitCode).toBe(EXIT.auth);
      expect(error.hint).toContain('MEMORY_BASE_URL and MEMORY_TOKEN');
      expect(error.hint).toContain('memory login');
    }
    expect((await failure(resolveConnection({}, { MEMORY_BASE_URL: 'https://core/v1' }))).message).toMatch(/a token is missing/);
  });

  it('refuses an address that is not an http(s) URL (exit 2)', async () => {
    expect((await failure(resolveConnection({}, { MEMORY_BASE_URL: 'core:8443', MEMORY_TOKEN: 't' }))).exitCode).toBe(EXIT.usage);
    expect((await failure(resolveConnection({}, { MEMORY_BASE_URL: 'not a url', MEMORY_TOKEN: 't' }))).exitCode).toBe(EXIT.usage);
  });

  it('says which CA file cannot be used', async () => {
    const missing = await failure(
      resolveConnection({ caFile: join(dir, 'absent.pem') }, { MEMORY_BASE_URL: 'https://core/v1', MEMORY_TOKEN: 't' }),
    );
    expect(missing.message).toContain('ENOENT');
    const notPem = join(dir, 'not.pem');
    await writeFile(notPem, 'hello');
    const wrong = await failure(resolveConnection({ caFile: notPem }, { MEMORY_BASE_URL: 'https://core/v1', MEMORY_TOKEN: 't' }));
    expect(wrong.message).toContain('no PEM certificate');
  });

  it('uses a profile named by --profile, or by MEMORY_PROFILE when no address is given; an unknown one is exit 4', async () => {
    const error = await failure(resolveConnection({ profile: 'work' }, { MEMORY_BASE_URL: 'https://core/v1', MEMORY_TOKEN: 'tok' }));
    expect(error.exitCode).toBe(EXIT.auth);
    expect(error.hint).toContain('memory login --profile work');
    expect((await failure(resolveConnection({}, { MEMORY_PROFILE: 'home' }))).message).toContain('"home"');
    const direct = await resolveConnection({}, { MEMORY_PROFILE: 'home', MEMORY_BASE_URL: 'https://core/v1', MEMORY_TOKEN: 't' });
    expect(direct.baseUrl).toBe('https://core/v1');
  });
});
