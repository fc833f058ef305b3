import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretReferenceError, resolveSecretReference, secretReferenceProblem } from '../../src/contract/secret-reference.js';
import { resolveSecretOption } from '../../src/agent-stub/secret-reference.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-stub-secret-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('resolveSecretReference', () => {
  it('reads env: from the given environment', async () => {
    expect(await resolveSecretReference('env:AGENT_SECRET', { AGENT_SECRET: 's3cret' })).toBe('s3cret');
    await expect(resolveSecretReference('env:AGENT_SECRET', {})).rejects.toThrow(/AGENT_SECRET is not set/);
    await expect(resolveSecretReference('env:1BAD', {})).rejects.toThrow(/not a valid environment variable name/);
  });

  it('reads file: and drops one trailing line break, keeping other whitespace', async () => {
    const file = join(dir, 'secret');
    await writeFile(file, ' spaced secret \n');
    expect(await resolveSecretReference(`file:${file}`)).toBe(' spaced secret ');
    await expect(resolveSecretReference(`file:${join(dir, 'missing')}`)).rejects.toThrow(/cannot read secret file .*ENOENT/);
  });

  it('refuses a raw secret, an unknown scheme and an empty secret', async () => {
    await expect(resolveSecretReference('hunter2')).rejects.toThrow(/a raw secret is not accepted/);
    await expect(resolveSecretReference('vault:x/y')).rejects.toBeInstanceOf(SecretReferenceError);
    await expect(resolveSecretReference('env:EMPTY', { EMPTY: '' })).rejects.toThrow(/is empty/);
    const empty = join(dir, 'empty');
    await writeFile(empty, '\n');
    await expect(resolveSecretReference(`file:${empty}`)).rejects.toThrow(/is empty/);
  });

  it('needs both a service and an account for keychain:', async () => {
    await expect(resolveSecretReference('keychain:only-service')).rejects.toThrow(/keychain:service\/account/);
    await expect(resolveSecretReference('keychain:/account')).rejects.toThrow(/keychain:service\/account/);
  });

  it('reads keychain: where a keychain works, and otherwise says clearly why it cannot', async () => {
    const keytar = await import('@napi-rs/keyring/keytar.js');
    const service = `meeting-memory-test-${process.pid}`;
    let writable = true;
    try {
      await keytar.setPassword(service, 'agent', 'from-keychain');
    } catch {
      writable = false;
    }
    if (writable) {
      try {
        expect(await resolveSecretReference(`keychain:${service}/agent`)).toBe('from-keychain');
      } finally {
        await keytar.deletePassword(service, 'agent');
      }
    } else {
      await expect(resolveSecretReference(`keychain:${service}/agent`)).rejects.toThrow(/keychain (entry|is unavailable)/);
    }
  });
});

describe('resolveSecretOption', () => {
  it('prefers the reference, falls back to MEMORY_AGENT_SECRET, and says how to give one', async () => {
    expect(await resolveSecretOption('env:A', { A: 'from-ref', MEMORY_AGENT_SECRET: 'from-env' })).toBe('from-ref');
    expect(await resolveSecretOption(undefined, { MEMORY_AGENT_SECRET: 'from-env' })).toBe('from-env');
    await expect(resolveSecretOption(undefined, {})).rejects.toThrow(/--secret .* or set MEMORY_AGENT_SECRET/);
  });
});

describe('secretReferenceProblem', () => {
  it('accepts the three reference forms and refuses anything else, a raw secret first of all', () => {
    for (const ok of ['env:AGENT_SECRET', 'file:/run/secrets/agent', 'keychain:meeting-memory/atlas']) {
      expect(secretReferenceProblem(ok), ok).toBeNull();
    }
    for (const bad of ['s3cr3t-value', 'env:1BAD', 'file:relative/path', 'keychain:noaccount', 'vault:x', '']) {
      expect(secretReferenceProblem(bad), bad).toMatch(/./);
    }
  });
});
