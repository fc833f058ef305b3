import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchEnvelope } from '../../../src/contract/index.js';
import { startEmbeddingServer, type EmbeddingServer } from '../../../bench/search/embedding-server.js';
import { startDemoCore, type TestCore } from '../../helpers/core.js';
import { searchCall, waitForEmbeddings } from './search-helpers.js';

let server: EmbeddingServer;
let hybrid: TestCore;
let keyword: TestCore;
const WRITER = 1;

beforeAll(async () => {
  server = await startEmbeddingServer();
  [hybrid, keyword] = await Promise.all([
    startDemoCore({ embeddings: { url: server.url, model: server.model } }),
    startDemoCore(),
  ]);
  await waitForEmbeddings(hybrid.core.store);
});
afterAll(async () => {
  await Promise.all([hybrid?.stop(), keyword?.stop()]);
  await server?.close();
});

async function health(t: TestCore): Promise<{ search: string }> {
  return (await fetch(`${t.core.origin}/v1/health`)).json() as Promise<{ search: string }>;
}

/** Every page of a search at `limit` per page, following next_cursor. */
async function allPages(t: TestCore, q: string, limit: number): Promise<{ id: string; score: number }[]> {
  const results: { id: string; score: number }[] = [];
  let cursor: string | null = null;
  do {
    const answer = await searchCall(t, { q, limit: String(limit), ...(cursor ? { cursor } : {}) });
    expect(answer.status).toBe(200);
    const envelope = SearchEnvelope.strict().parse(answer.body);
    results.push(...envelope.results);
    cursor = envelope.next_cursor;
  } while (cursor !== null && results.length < 150);
  return results;
}

describe('hybrid search through the API', () => {
  it('says which mode it runs in, in its health document and in the line it prints at start', async () => {
    expect((await health(hybrid)).search).toBe('hybrid');
    expect((await health(keyword)).search).toBe('keyword');
    expect(hybrid.core.search.describe).toMatch(/^search: hybrid .*concept-embedder-v1/);
    expect(keyword.core.search.describe).toMatch(/^search: keyword /);
  });

  it('finds by meaning a record that shares no word with the question, which keyword search cannot', async () => {
    const q = 'pager duty and outage postmortems';
    const names = (body: any, n: number) => (body.results as { type: string; text: string }[]).slice(0, n).map((r) => r.text);
    const byKeyword = await searchCall(keyword, { q, limit: '10' });
    const byHybrid = await searchCall(hybrid, { q, limit: '10' });
    expect(names(byKeyword.body, 10)).not.toContain('On-call and incident follow-up');
    expect(names(byHybrid.body, 5)).toContain('On-call and incident follow-up');
  });

  it('scores in (0, 1], best first, and pages through one ranking without gaps or repeats', async () => {
    const q = 'when do we move the annual contracts to the new billing engine';
    const whole = SearchEnvelope.strict().parse((await searchCall(hybrid, { q, limit: '100' })).body);
    expect(whole.results.length).toBe(100);
    const scores = whole.results.map((r) => r.score);
    expect(scores.every((s) => s > 0 && s <= 1)).toBe(true);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const paged = await allPages(hybrid, q, 7);
    expect(new Set(paged.map((r) => r.id)).size).toBe(paged.length);
    expect(paged.slice(0, 100).map((r) => r.id)).toEqual(whole.results.map((r) => r.id));
  });

  it('keeps later pages as the first page saw them while new records arrive', async () => {
    const q = 'Frankfurt region migration date';
    const first = (await searchCall(hybrid, { q, limit: '5' })).body;
    expect(first.next_cursor).toEqual(expect.any(String));
    const created = await fetch(`${hybrid.core.baseUrl}/deployments/${hybrid.creds.deployments[0]!.id}/action-items`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await hybrid.token(WRITER)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Confirm the Frankfurt region migration date with every customer' }),
    });
    expect(created.status).toBe(201);
    const newId = ((await created.json()) as { id: string }).id;
    const second = (await searchCall(hybrid, { q, limit: '5', cursor: first.next_cursor })).body;
    const ids = [...first.results, ...second.results].map((r: { id: string }) => r.id);
    expect(ids).not.toContain(newId);
    expect(new Set(ids).size).toBe(ids.length);
    await waitForEmbeddings(hybrid.core.store);
    const fresh = (await searchCall(hybrid, { q, limit: '5' })).body;
    expect(fresh.results.map((r: { id: string }) => r.id)).toContain(newId);
  });

  it('applies types, since and until to both legs', async () => {
    const q = 'what did we decide about the Frankfurt region';
    const decisions = (await searchCall(hybrid, { q, types: 'decision', limit: '50' })).body.results as { type: string }[];
    expect(decisions.length).toBeGreaterThan(3);
    expect(decisions.every((r) => r.type === 'decision')).toBe(true);
    const windowed = (await searchCall(hybrid, { q, since: '2026-09-10', until: '2026-09-22', limit: '100' })).body.results as Record<
      string,
      string
    >[];
    expect(windowed.length).toBeGreaterThan(5);
    for (const result of windowed) {
      const at = result.decided_at ?? result.raised_at ?? result.spoken_at ?? result.last_discussed_at ?? result.created_at;
      expect(at! >= '2026-09-10T00:00:00Z' && at! <= '2026-09-22T23:59:59Z', `${result.type} at ${at}`).toBe(true);
    }
  });

  it('refuses a cursor sent with another query', async () => {
    const first = (await searchCall(hybrid, { q: 'billing', limit: '2' })).body;
    const answer = await searchCall(hybrid, { q: 'billing engine', limit: '2', cursor: first.next_cursor });
    expect(answer.status).toBe(400);
    expect(answer.body.invalid_params).toEqual([expect.objectContaining({ name: 'cursor', in: 'query' })]);
  });
});
