import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ConfidentialClientApplication } from '@azure/msal-node';
import { Agent, request } from 'undici';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMsalNetworkClient } from '../../../src/auth/network-client.js';
import { startCore } from '../../../src/core/server/serve.js';
import { ensureTlsMaterial } from '../../../src/tls/index.js';
import { requestToken, type DemoCredentials } from '../../helpers/core.js';
import { ensureBuilt } from '../../helpers/build.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mm-serve-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function readCreds(file: string): Promise<DemoCredentials> {
  return JSON.parse(await readFile(file, 'utf8')) as DemoCredentials;
}

describe('memory serve over TLS', () => {
  it('generates its CA and certificate, and real MSAL gets a token the REST surface accepts', async () => {
    const dataDir = await tempDir();
    const core = await startCore({ port: 0, host: '127.0.0.1', dataDir, demo: true, tls: { mode: 'generate' }, issuer: { mode: 'builtin' } });
    try {
      expect(core.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1$/);
      const creds = await readCreds(core.demoCredentialsFile!);
      expect(creds.ca_file).toBe(core.caFile);
      const ca = await readFile(creds.ca_file!, 'utf8');
      const principal = creds.principals[0]!;
      const msal = new ConfidentialClientApplication({
        auth: {
          clientId: principal.client_id,
          clientSecret: principal.client_secret,
          authority: creds.authority,
          knownAuthorities: [new URL(creds.authority).host],
        },
        system: { networkClient: createMsalNetworkClient({ ca }) },
      });
      const result = await msal.acquireTokenByClientCredential({ scopes: [principal.scope] });
      expect(result?.accessToken).toBeTruthy();
      const dispatcher = new Agent({ connect: { ca } });
      const answer = await request(`${creds.base_url}/deployments/${creds.deployments[0]!.id}/decisions?limit=3`, {
        headers: { authorization: `Bearer ${result!.accessToken}` },
        dispatcher,
      });
      expect(answer.statusCode).toBe(200);
      expect(((await answer.body.json()) as { items: unknown[] }).items).toHaveLength(3);
      await dispatcher.close();
    } finally {
      await core.close();
    }
  });

  it('serves a certificate it is given with --tls-cert/--tls-key', async () => {
    const material = await ensureTlsMaterial(await tempDir(), ['127.0.0.1']);
    const core = await startCore({
      port: 0,
      host: '127.0.0.1',
      dataDir: await tempDir(),
      demo: false,
      tls: { mode: 'files', certFile: material.certFile, keyFile: material.keyFile },
      issuer: { mode: 'builtin' },
    });
    try {
      const dispatcher = new Agent({ connect: { ca: material.ca } });
      const answer = await request(`${core.baseUrl}/health`, { dispatcher });
      expect(answer.statusCode).toBe(200);
      expect(await answer.body.json()).toMatchObject({ status: 'ok' });
      await dispatcher.close();
    } finally {
      await core.close();
    }
  });
});

describe('memory serve --demo on an existing data dir', () => {
  it('keeps the data and rewrites the credentials with fresh secrets', async () => {
    const dataDir = await tempDir();
    const options = { port: 0, host: '127.0.0.1', dataDir, demo: true, tls: { mode: 'off' as const }, issuer: { mode: 'builtin' as const } };
    const first = await startCore(options);
    const before = await readCreds(first.demoCredentialsFile!);
    const token = await requestToken(before.token_url, before.principals[1]!.client_id, before.principals[1]!.client_secret, before.principals[1]!.scope);
    const created = await fetch(`${before.base_url}/deployments/${before.deployments[0]!.id}/action-items`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Survives a restart' }),
    });
    expect(created.status).toBe(201);
    const createdId = ((await created.json()) as { id: string }).id;
    await first.close();

    const second = await startCore(options);
    try {
      const after = await readCreds(second.demoCredentialsFile!);
      expect(after.tenant_id).toBe(before.tenant_id);
      expect(after.deployments).toEqual(before.deployments);
      expect(after.principals.map((p) => p.client_id)).toEqual(before.principals.map((p) => p.client_id));
      expect(after.principals.map((p) => p.client_secret)).not.toContain(before.principals[1]!.client_secret);
      expect((await stat(second.demoCredentialsFile!)).mode & 0o777).toBe(0o600);
      await expect(
        requestToken(after.token_url, before.principals[1]!.client_id, before.principals[1]!.client_secret, before.principals[1]!.scope),
      ).rejects.toThrow(/401/);
      const fresh = await requestToken(after.token_url, after.principals[1]!.client_id, after.principals[1]!.client_secret, after.principals[1]!.scope);
      const back = await fetch(`${after.base_url}/deployments/${after.deployments[0]!.id}/action-items/${createdId}`, {
        headers: { authorization: `Bearer ${fresh}` },
      });
      expect(back.status).toBe(200);
    } finally {
      await second.close();
    }
  });
});

describe('the memory serve command', () => {
  beforeAll(async () => ensureBuilt(), 120_000);

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`prints one JSON line when ready and shuts down cleanly on ${signal}`, async () => {
      const dataDir = await tempDir();
      const child = spawn(process.execPath, ['bin/memory.js', 'serve', '--demo', '--no-tls', '--port', '0', '--data-dir', dataDir, '--json'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const lines = createInterface({ input: child.stdout });
      const first = await new Promise<string>((resolve, reject) => {
        lines.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited early with ${code}`)));
      });
      const ready = JSON.parse(first) as { base_url: string; mcp_url: string; demo_credentials: string };
      expect(ready.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(ready.mcp_url).toBe(`${ready.base_url}/mcp`);
      expect(ready.demo_credentials).toBe(join(dataDir, 'demo-credentials.json'));
      expect((await fetch(`${ready.base_url}/health`)).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill(signal);
      expect(await exited).toBe(0);
    });
  }

  it('refuses bad flags with exit code 2', async () => {
    const child = spawn(process.execPath, ['bin/memory.js', 'serve', '--port', 'eighty'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--port');
  });
});
