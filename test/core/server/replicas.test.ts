import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../../src/core/store/index.js';
import { BIN, ensureBuilt, ROOT } from '../../helpers/build.js';
import { requestToken, type DemoCredentials } from '../../helpers/core.js';
import { asOwner, dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../../helpers/postgres.js';

interface Replica {
  child: ChildProcess;
  baseUrl: string;
  stderr: () => string;
}

const dirs: string[] = [];
const replicas: Replica[] = [];
let schema: string;
let databaseUrl: string;
let creds: DemoCredentials;
let token: string;
let deploymentId: string;
let a: Replica;
let b: Replica;

/** A port nothing listens on right now, so both replicas can be told theirs before they start. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

/**
 * Starts the built `memory serve` on PostgreSQL and resolves once it prints its ready line. Both replicas share one
 * public URL, as they would behind a load balancer, so tokens either issues carry the issuer both expect.
 */
async function startReplica(port: number, publicUrl: string, extra: string[]): Promise<Replica> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mm-replica-'));
  dirs.push(dataDir);
  const args = ['serve', '--no-tls', '--port', String(port), '--data-dir', dataDir, '--public-url', publicUrl, '--json', ...extra];
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, MEMORY_DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const replica = { child, baseUrl: `http://127.0.0.1:${port}/v1`, stderr: () => stderr };
  replicas.push(replica);
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.once('line', () => resolve());
    child.once('exit', (code) => reject(new Error(`replica exited with ${code}: ${stderr}`)));
  });
  return replica;
}

/** API calls made on either replica, each of which must leave exactly one audit entry. */
let calls = 0;

async function call(replica: Replica, method: string, path: string, body?: unknown) {
  calls += 1;
  const response = await fetch(`${replica.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  await ensureBuilt();
  schema = uniqueSchema('mm_replicas');
  await asOwner(`CREATE SCHEMA ${schema}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  databaseUrl = url.toString();
  const [portA, portB] = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${portA}`;
  a = await startReplica(portA, publicUrl, ['--demo']);
  b = await startReplica(portB, publicUrl, []);
  creds = JSON.parse(await readFile(join(dirs[0]!, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
  const writer = creds.principals[1]!;
  token = await requestToken(creds.token_url, writer.client_id, writer.client_secret, writer.scope);
  deploymentId = writer.grants[0]!.deployment_id;
}, 120_000);

afterAll(async () => {
  for (const { child } of replicas) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  if (schema) await dropSchema(schema);
});

describe('two memory serve replicas on one PostgreSQL database', () => {
  it('say they run keyword-only when PostgreSQL has no pgvector', async () => {
    const [row] = await asOwner<{ n: number }>("SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'");
    for (const replica of [a, b]) expect(replica.stderr().includes('keyword-only')).toBe(row?.n === 0);
  });

  it('read on one what was written on the other, with a token the other issued', async () => {
    const created = await call(a, 'POST', `/deployments/${deploymentId}/action-items`, { text: 'Send the replica report' });
    expect(created.status).toBe(201);
    const read = await call(b, 'GET', `/deployments/${deploymentId}/action-items/${String(created.body.id)}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const listed = await call(b, 'GET', `/deployments/${deploymentId}/action-items?limit=100`);
    expect((listed.body.items as { id: string }[]).map((item) => item.id)).toContain(created.body.id);
    const found = await call(b, 'GET', `/deployments/${deploymentId}/search?q=replica%20report`);
    expect((found.body.results as { id: string }[])[0]?.id).toBe(created.body.id);
  });

  it('refuse the 601st call of a principal in a window, whichever replica takes it', async () => {
    const first = await call(b, 'GET', `/deployments/${deploymentId}/decisions?limit=1`);
    expect(first.status).toBe(200);
    let remaining = Number(first.headers.get('ratelimit-remaining'));
    expect(remaining).toBeLessThan(600);
    // Spend what is left of this principal's window, alternating replicas, a few calls at a time.
    while (remaining > 0) {
      const batch = Math.min(remaining, 8);
      const answers = await Promise.all(
        Array.from({ length: batch }, (_, i) => call(i % 2 === 0 ? a : b, 'GET', `/deployments/${deploymentId}/decisions?limit=1`)),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(batch).fill(200));
      remaining -= batch;
    }
    for (const replica of [a, b]) {
      const refused = await call(replica, 'GET', `/deployments/${deploymentId}/decisions?limit=1`);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    }
  }, 120_000);

  it('leave one audit chain per kind that verifies, holding every call both replicas served', async () => {
    let store: PostgresStore | undefined;
    try {
      store = await openPostgresStore({ url: databaseUrl });
      const verification = await store.verifyAudit();
      expect(verification.ok).toBe(true);
      // Every call either replica served, the two refusals included: nothing lost, nothing forked.
      expect(verification.checked).toBe(calls);
      const tenantLog = await store.queryAudit(creds.tenant_id, { limit: 700 });
      expect(tenantLog.entries.filter((entry) => entry.status === 429)).toHaveLength(2);
    } finally {
      await store?.close();
    }
  });

  it('refuse to start, saying what to fix, on a database that cannot be reached', async () => {
    const unreachable = new URL(TEST_DATABASE_URL);
    unreachable.port = '1';
    const child = spawn(process.execPath, [BIN, 'serve', '--no-tls', '--port', '0', '--database-url', unreachable.toString()], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/Cannot reach PostgreSQL at .*:1 \(ECONNREFUSED\)/);
    expect(stderr).toMatch(/host and port/);
    expect(stderr).not.toMatch(/bug/);
  });
});
