import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileStore, InsecureFileError, keychainAccount, memoryStore, openCredentialStore } from '../../src/auth/credential-store.js';
import { KeychainUnavailableError, keychainTimeoutMs, keychainTurnedOff, openKeychain } from '../../src/auth/keychain.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memory-store-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fileStore (--insecure-storage)', () => {
  it('keeps items per profile in a 0600 file inside a 0700 directory', async () => {
    const file = join(dir, 'config', 'credentials.json');
    const store = fileStore(file);
    await store.set('work', 'client-secret', 's3cret');
    await store.set('work', 'token-cache', '{"AccessToken":{}}');
    await store.set('home', 'client-secret', 'other');
    expect(await store.get('work', 'client-secret')).toBe('s3cret');
    expect(await store.get('home', 'client-secret')).toBe('other');
    expect(await store.get('nobody', 'client-secret')).toBeUndefined();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'config'))).mode & 0o777).toBe(0o700);
    expect(store.describe('work')).toContain(file);
  });

  it('deletes items, dropping a profile with none left, and writes nothing when there was nothing to delete', async () => {
    const file = join(dir, 'delete', 'credentials.json');
    const store = fileStore(file);
    await store.delete('work', 'client-secret');
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
    await store.set('work', 'client-secret', 'a');
    await store.set('work', 'token-cache', 'b');
    await store.delete('work', 'client-secret');
    expect(JSON.parse(await readFile(file, 'utf8')).profiles.work).toEqual({ 'token-cache': 'b' });
    await store.delete('work', 'token-cache');
    expect(JSON.parse(await readFile(file, 'utf8')).profiles).toEqual({});
  });

  it('refuses a file other users can read, as ssh refuses a readable key', async () => {
    const file = join(dir, 'open', 'credentials.json');
    const store = fileStore(file);
    await store.set('work', 'client-secret', 's3cret');
    await chmod(file, 0o644);
    await expect(store.get('work', 'client-secret')).rejects.toBeInstanceOf(InsecureFileError);
  });
});

describe('memoryStore', () => {
  it('keeps items for this process only', async () => {
    const store = memoryStore();
    await store.set('work', 'token-cache', 'x');
    expect(await store.get('work', 'token-cache')).toBe('x');
    await store.delete('work', 'token-cache');
    expect(await store.get('work', 'token-cache')).toBeUndefined();
    expect(store.kind).toBe('none');
  });
});

describe('openKeychain', () => {
  it('is unavailable when MEMORY_NO_KEYCHAIN says so, without loading anything', async () => {
    expect(keychainTurnedOff({ MEMORY_NO_KEYCHAIN: '1' })).toBe(true);
    expect(keychainTurnedOff({ MEMORY_NO_KEYCHAIN: '0' })).toBe(false);
    expect(keychainTurnedOff({})).toBe(false);
    const error = await openKeychain({ env: { MEMORY_NO_KEYCHAIN: '1' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KeychainUnavailableError);
    expect((error as KeychainUnavailableError).reason).toContain('MEMORY_NO_KEYCHAIN');
  });

  it('on Linux needs a D-Bus session bus for the Secret Service', async () => {
    const error = await openKeychain({ env: {}, platform: 'linux' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KeychainUnavailableError);
    expect((error as Error).message).toBe('No usable OS keychain: there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set).');
    await expect(openCredentialStore('keychain', { credentialsFile: join(dir, 'x.json'), env: {} })).rejects.toBeInstanceOf(KeychainUnavailableError);
  });

  it('reads its timeout from MEMORY_KEYCHAIN_TIMEOUT_MS, and files accounts as <profile>/<item>', () => {
    expect(keychainTimeoutMs({ MEMORY_KEYCHAIN_TIMEOUT_MS: '750' })).toBe(750);
    expect(keychainTimeoutMs({ MEMORY_KEYCHAIN_TIMEOUT_MS: 'soon' })).toBe(5000);
    expect(keychainAccount('work', 'client-secret')).toBe('work/client-secret');
  });
});
