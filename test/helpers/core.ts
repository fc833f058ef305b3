import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DemoCredentials } from '../../src/core/demo/index.js';
import { startCore, type CoreOptions, type RunningCore } from '../../src/core/server/serve.js';

export type { DemoCredentials };

export interface TestCore {
  core: RunningCore;
  creds: DemoCredentials;
  dataDir: string;
  /** A token for the demo principal at this index (0 read dep 1, 1 read_write dep 1, 2 read dep 2). */
  token(principal: number): Promise<string>;
  stop(): Promise<void>;
}

/** Requests a client-credentials token from a token endpoint, as any OAuth client would. */
export async function requestToken(tokenUrl: string, clientId: string, clientSecret: string, scope: string): Promise<string> {
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (!response.ok || !body.access_token) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** A real core on a free port over plain http with the demo provisioned in a fresh temp data dir. */
export async function startDemoCore(options: Partial<CoreOptions> = {}): Promise<TestCore> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'mm-core-')));
  const core = await startCore({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    demo: true,
    tls: { mode: 'off' },
    issuer: { mode: 'builtin' },
    ...options,
  });
  const creds = JSON.parse(await readFile(core.demoCredentialsFile!, 'utf8')) as DemoCredentials;
  const cache = new Map<number, string>();
  return {
    core,
    creds,
    dataDir,
    async token(index) {
      const principal = creds.principals[index]!;
      if (!cache.has(index)) {
        cache.set(index, await requestToken(creds.token_url, principal.client_id, principal.client_secret, principal.scope));
      }
      return cache.get(index)!;
    },
    async stop() {
      await core.close();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
