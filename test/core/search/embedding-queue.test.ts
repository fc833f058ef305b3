import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddingServer, type EmbeddingServer } from '../../../bench/search/embedding-server.js';
import { runReindex } from '../../../src/cli/commands/admin-reindex.js';
import type { Terminal } from '../../../src/cli/output/terminal.js';
import { startDemoCore, type TestCore } from '../../helpers/core.js';
import { call, startAdminCore, type AdminCore } from '../admin/admin-helpers.js';
import { searchCall, waitForEmbeddings } from './search-helpers.js';

let server: EmbeddingServer;
const dirs: string[] = [];

beforeAll(async () => {
  server = await startEmbeddingServer();
});
afterAll(async () => {
  await server?.close();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mm-search-queue-'));
  dirs.push(dir);
  return dir;
}

async function searchableCount(t: TestCore): Promise<number> {
  return (await t.core.store.searchIndex!.embeddingBacklog()).embedded;
}

describe('the durable embedding queue', () => {
  it('keeps what could not be embedded across a restart and embeds it once the provider answers', async () => {
    const dir = await dataDir();
    const down = await startDemoCore({ dataDir: dir, embeddings: { url: 'http://127.0.0.1:9/v1', model: server.model } });
    try {
      expect(down.core.search.describe).toMatch(/does not answer yet/);
      const backlog = await down.core.store.searchIndex!.embeddingBacklog();
      expect(backlog.embedded).toBe(0);
      expect(backlog.pending).toBeGreaterThan(400);
      const answer = await searchCall(down, { q: 'Frankfurt region' });
      expect(answer.status).toBe(200);
      expect(answer.body.results.length).toBeGreaterThan(0);
    } finally {
      await down.stop();
    }
    const up = await startDemoCore({ dataDir: dir, embeddings: { url: server.url, model: server.model } });
    try {
      await waitForEmbeddings(up.core.store);
      const { pending, failed, embedded } = await up.core.store.searchIndex!.embeddingBacklog();
      expect({ pending, failed }).toEqual({ pending: 0, failed: 0 });
      expect(embedded).toBeGreaterThan(400);
    } finally {
      await up.stop();
    }
  });

  it('embeds everything again when the model or its dimensions change', async () => {
    const dir = await dataDir();
    const first = await startDemoCore({ dataDir: dir, embeddings: { url: server.url, model: server.model } });
    await waitForEmbeddings(first.core.store);
    const total = await searchableCount(first);
    await first.stop();
    const requestsBefore = server.stats.texts;
    const second = await startDemoCore({ dataDir: dir, embeddings: { url: server.url, model: server.model, dimensions: 64 } });
    try {
      await waitForEmbeddings(second.core.store);
      expect(await searchableCount(second)).toBe(total);
      expect(server.stats.texts - requestsBefore).toBeGreaterThanOrEqual(total);
      expect((await searchCall(second, { q: 'pager duty and outage postmortems' })).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('isolates records the provider refuses, and embeds the rest', async () => {
    const picky = await startEmbeddingServer({ refuse: 'Halvorsen' });
    const t = await startDemoCore({ embeddings: { url: picky.url, model: picky.model } });
    try {
      const deadline = Date.now() + 20_000;
      let backlog = await t.core.store.searchIndex!.embeddingBacklog();
      while (backlog.embedded + backlog.pending < 400 || (await t.core.store.searchIndex!.claimEmbeddingTasks(1, 0)).length > 0) {
        if (Date.now() > deadline) throw new Error(`stuck: ${JSON.stringify(backlog)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        backlog = await t.core.store.searchIndex!.embeddingBacklog();
      }
      backlog = await t.core.store.searchIndex!.embeddingBacklog();
      expect(backlog.embedded).toBeGreaterThan(300);
      expect(backlog.pending).toBeGreaterThan(0);
      expect(backlog.pending).toBeLessThan(80);
    } finally {
      await t.stop();
      await picky.close();
    }
  });
});

describe('memory admin reindex', () => {
  let a: AdminCore;
  beforeAll(async () => {
    a = await startAdminCore({ embeddings: { url: server.url, model: server.model } });
    await waitForEmbeddings(a.t.core.store);
  });
  afterAll(async () => a?.t.stop());

  it('reports the search mode and backlog to admins only', async () => {
    const status = await call(a.t, 'GET', '/admin/search', { token: a.adminToken });
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ mode: 'hybrid', model: server.model, pending: 0, failed: 0, embedded: expect.any(Number) });
    expect((await call(a.t, 'GET', '/admin/search', { token: await a.t.token(0) })).status).toBe(403);
  });

  it("queues the tenant's records again and the CLI follows the worker until they are embedded", async () => {
    const before = (await call(a.t, 'GET', '/admin/search', { token: a.adminToken })).body.embedded as number;
    const out: string[] = [];
    const terminal: Terminal = { isTTY: false, columns: 80, color: false, out: (text) => out.push(text), err: () => {} };
    process.env.MEMORY_TOKEN = a.adminToken;
    try {
      await runReindex({ baseUrl: a.t.core.baseUrl }, terminal);
    } finally {
      delete process.env.MEMORY_TOKEN;
    }
    const result = JSON.parse(out.join(''));
    expect(result).toMatchObject({ mode: 'hybrid', pending: 0, failed: 0, queued: before, embedded: before });
  });

  it('reindexes one deployment, and 404s a deployment of another tenant', async () => {
    const atlas = a.t.creds.deployments[0]!.id;
    const one = await call(a.t, 'POST', '/admin/search/reindex', { token: a.adminToken, body: { deployment_id: atlas } });
    expect(one.status).toBe(200);
    expect(one.body.queued).toBeGreaterThan(200);
    const all = (await call(a.t, 'GET', '/admin/search', { token: a.adminToken })).body;
    expect(one.body.queued).toBeLessThan(all.embedded + all.pending);
    const foreign = await call(a.t, 'POST', '/admin/search/reindex', { token: a.operatorToken, body: { deployment_id: atlas } });
    expect(foreign.status).toBe(404);
    await waitForEmbeddings(a.t.core.store);
  });
});
