import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoCore, type TestCore } from '../helpers/core.js';
import { bin, ensureBuilt, jwtClaims, runMemoryProcess } from './cli-process.js';

// Signs in with the real MSAL library against a core's built-in issuer over TLS and keeps the secret in a real OS
// keychain: a private gnome-keyring, unlocked headlessly inside its own `dbus-run-session`, so the test never
// touches the developer's own keyring and runs from a plain `npm test` wherever the Debian packages are installed
// (.ci/run installs them). Without them the test fails and says what to install; MEMORY_TEST_NO_KEYCHAIN=1 runs the
// no-keychain checks instead, but only where the tools are missing, so CI cannot skip the real keychain this way.

const TOOLS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'];
const missing = TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
const noKeychainMode = missing.length > 0 && process.env.MEMORY_TEST_NO_KEYCHAIN === '1';
const driver = fileURLToPath(new URL('./keychain-session.mjs', import.meta.url));

type Step = { code: number | null; stdout: string; stderr: string };

let core: TestCore;
let scratch: string;

/** Runs the driver in a fresh session bus with a new gnome-keyring unlocked by a random password. */
function keychainSession(env: Record<string, string>): Promise<Record<string, Step>> {
  const script = 'printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec node "$DRIVER"';
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', script], {
    env: { PATH: process.env.PATH, KEYRING_PASSWORD: randomBytes(12).toString('hex'), DRIVER: driver, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const line = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`the keychain session failed (exit ${code}):\n${stdout}\n${stderr}`));
      else resolve(JSON.parse(line) as Record<string, Step>);
    });
  });
}

beforeAll(async () => {
  if (missing.length > 0 && !noKeychainMode) return;
  await ensureBuilt();
  scratch = await mkdtemp(join(tmpdir(), 'memory-keychain-'));
  core = await startDemoCore({ tls: { mode: 'generate' } });
}, 120_000);

afterAll(async () => {
  await core?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the OS keychain', () => {
  it(noKeychainMode ? 'without a keychain (MEMORY_TEST_NO_KEYCHAIN=1) refuses to keep a secret and names the fallbacks' : 'signs in with MSAL over TLS and keeps the secret in gnome-keyring until logout', async () => {
    if (missing.length > 0 && !noKeychainMode) {
      throw new Error(
        `The real-keychain test needs ${missing.join(', ')} on PATH: apt-get install dbus gnome-keyring libsecret-tools ` +
          '(as .ci/run does). Set MEMORY_TEST_NO_KEYCHAIN=1 to run the no-keychain checks instead on this machine.',
      );
    }
    const writer = core.creds.principals[1]!;
    const home = await mkdtemp(join(scratch, 'home-'));
    const env = { HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), XDG_RUNTIME_DIR: home, NO_COLOR: '1' };
    if (noKeychainMode) {
      const args = ['login', '--base-url', core.creds.base_url, '--tenant', core.creds.tenant_id, '--client-id', writer.client_id, '--ca-file', core.creds.ca_file!];
      const noBus = process.platform === 'linux' ? {} : { MEMORY_NO_KEYCHAIN: '1' };
      const run = await runMemoryProcess([...args, '--client-secret-stdin'], { env: { ...env, ...noBus }, input: writer.client_secret });
      expect(run.code).toBe(4);
      expect(run.stderr).toContain('No usable OS keychain');
      expect(run.stderr).toContain('--insecure-storage');
      return;
    }
    const steps = await keychainSession({
      ...env,
      MEMORY_BIN: bin,
      CORE_BASE_URL: core.creds.base_url,
      TENANT_ID: core.creds.tenant_id,
      CLIENT_ID: writer.client_id,
      CA_FILE: core.creds.ca_file!,
      CLIENT_SECRET: writer.client_secret,
    });
    expect(steps.login!.stderr).toContain('Signed in: profile "kc"');
    expect(steps.login!.code).toBe(0);
    expect(steps.login!.stderr).toContain('Secret Service keyring');
    expect(steps.login!.stderr).not.toContain('warning');
    // libsecret finds the secret in the keyring: it is in gnome-keyring, not in a file or the kernel keyring.
    expect(steps.lookup).toMatchObject({ code: 0, stdout: writer.client_secret });
    expect(steps.profiles!.stdout).not.toContain(writer.client_secret);
    expect(JSON.parse(steps.status!.stdout)).toMatchObject({ storage: 'keychain', secret: 'stored', token_expires_at: expect.stringMatching(/Z$/) });
    const token = steps.token!.stdout.trim();
    expect(jwtClaims(token)).toMatchObject({ azp: writer.client_id, iss: `${core.creds.authority}/v2.0` });
    expect(steps.tokenAgain!.stdout.trim()).toBe(token);
    expect(steps.list!.code).toBe(0);
    expect(JSON.parse(steps.list!.stdout).items).toHaveLength(1);
    expect(steps.logout!.code).toBe(0);
    expect(steps.lookupAfterLogout!.stdout).toBe('');
    expect(steps.statusAfterLogout!.code).toBe(4);
  });
});
