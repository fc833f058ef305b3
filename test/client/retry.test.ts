import { afterEach, describe, expect, it } from 'vitest';
import { MemoryApiError, MemoryOutcomeUnknownError } from '../../src/client/index.js';
import { problem, startClientHarness, type ClientHarness, type Responder } from './recording-server.js';

const FAST = { baseDelayMs: 5, maxDelayMs: 20 };
const decision = (status: string, note: string | null = null) => ({
  id: 'dec-1',
  type: 'decision',
  deployment_id: 'd1',
  meeting_id: 'm1',
  text: 'Ship on Friday',
  decided_at: '2025-01-02T10:00:00Z',
  status,
  note,
  attribution: { kind: 'anonymous' },
  created_at: '2025-01-02T10:00:00Z',
  updated_at: null,
  updated_by: null,
});

let harness: ClientHarness | undefined;

async function setUp(respond: Responder, retry: object = {}): Promise<ClientHarness> {
  harness = await startClientHarness(respond, { retry: { ...FAST, ...retry } });
  return harness;
}

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('reads', () => {
  it('retries a 503 with backoff and returns the answer that follows', async () => {
    const { server, client } = await setUp((_request, index) =>
      index < 2 ? problem(503) : { status: 200, body: { items: [], next_cursor: null } },
    );
    await expect(client.listDecisions({ deployment_id: 'd1' })).resolves.toEqual({ items: [], next_cursor: null });
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after readAttempts tries with the 503 problem', async () => {
    const { server, client } = await setUp(() => problem(503), { readAttempts: 3 });
    const error = await client.listDecisions({ deployment_id: 'd1' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MemoryApiError);
    expect(error).not.toBeInstanceOf(MemoryOutcomeUnknownError);
    expect((error as MemoryApiError).status).toBe(503);
    expect(server.requests).toHaveLength(3);
  });

  it('waits out Retry-After on a 429, then retries', async () => {
    const { server, client } = await setUp((_request, index) =>
      index === 0 ? { ...problem(429), headers: { 'retry-after': '1' } } : { status: 200, body: { items: [] } },
    );
    const started = Date.now();
    await expect(client.listDeployments()).resolves.toEqual({ items: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
  });

  it('throws a 429 at once when Retry-After is longer than it will wait', async () => {
    const { server, client } = await setUp(() => ({ ...problem(429), headers: { 'retry-after': '120' } }), {
      maxRetryAfterMs: 5000,
    });
    const started = Date.now();
    const error = (await client.listDeployments().catch((caught: unknown) => caught)) as MemoryApiError;
    expect(error.status).toBe(429);
    expect(error.retryAfterSeconds).toBe(120);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry other failures', async () => {
    const { server, client } = await setUp(() => problem(500));
    await expect(client.listDeployments()).rejects.toMatchObject({ status: 500 });
    expect(server.requests).toHaveLength(1);
  });
});

describe('writes', () => {
  it('never repeats a write after a 503: it reads the record back and returns it when the change shows', async () => {
    const { server, client } = await setUp((request) =>
      request.method === 'PATCH' ? problem(503) : { status: 200, body: decision('superseded', 'old plan') },
    );
    const record = await client.updateDecision({
      deployment_id: 'd1',
      decision_id: 'dec-1',
      status: 'superseded',
      note: '  old plan ',
    });
    expect(record.status).toBe('superseded');
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'PATCH /v1/deployments/d1/decisions/dec-1',
      'GET /v1/deployments/d1/decisions/dec-1',
    ]);
  });

  it('says the outcome is unknown when the read-back does not show the change', async () => {
    const { server, client } = await setUp((request) =>
      request.method === 'PATCH' ? problem(503) : { status: 200, body: decision('confirmed') },
    );
    const error = await client
      .updateDecision({ deployment_id: 'd1', decision_id: 'dec-1', status: 'superseded' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MemoryOutcomeUnknownError);
    expect((error as MemoryOutcomeUnknownError).status).toBe(503);
    expect((error as Error).message).toMatch(/outcome of updateDecision is unknown/);
    expect(server.requests.filter((request) => request.method === 'PATCH')).toHaveLength(1);
  });

  it('checks cleared fields and the assignee on an action item read-back', async () => {
    const item = {
      id: 'ai-1',
      type: 'action_item',
      deployment_id: 'd1',
      meeting_id: null,
      text: 'Send notes',
      status: 'open',
      assignee: { kind: 'platform_identity', display_name: 'Ann', idp_id: 'oid-ann' },
      due_date: null,
      attribution: { kind: 'anonymous' },
      created_at: '2025-01-02T10:00:00Z',
      updated_at: null,
      updated_by: null,
    };
    const { client } = await setUp((request) => (request.method === 'PATCH' ? problem(503) : { status: 200, body: item }));
    await expect(
      client.updateActionItem({ deployment_id: 'd1', action_item_id: 'ai-1', assignee_idp_id: 'oid-ann', clear_due_date: true }),
    ).resolves.toEqual(item);
    await expect(
      client.updateActionItem({ deployment_id: 'd1', action_item_id: 'ai-1', assignee_idp_id: 'oid-bob' }),
    ).rejects.toBeInstanceOf(MemoryOutcomeUnknownError);
  });

  it('says the outcome is unknown when the read-back itself fails', async () => {
    const { server, client } = await setUp(() => problem(503), { readAttempts: 2 });
    const error = await client
      .resolveOpenQuestion({ deployment_id: 'd1', open_question_id: 'q1', status: 'resolved' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MemoryOutcomeUnknownError);
    expect((error as Error).cause).toBeInstanceOf(MemoryApiError);
    expect(server.requests.map((request) => request.method)).toEqual(['PATCH', 'GET', 'GET']);
  });

  it('cannot read back a create, so a 503 on create is an unknown outcome after one request', async () => {
    const { server, client } = await setUp(() => problem(503));
    await expect(client.createActionItem({ deployment_id: 'd1', text: 'Call the bank' })).rejects.toBeInstanceOf(
      MemoryOutcomeUnknownError,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('retries a write refused with 429, since a refused call was not applied', async () => {
    const { server, client } = await setUp((_request, index) =>
      index === 0 ? { ...problem(429), headers: { 'retry-after': '0' } } : { status: 201, body: { id: 'ai-9' } },
    );
    await expect(client.createActionItem({ deployment_id: 'd1', text: 'Call the bank' })).resolves.toEqual({ id: 'ai-9' });
    expect(server.requests.map((request) => request.method)).toEqual(['POST', 'POST']);
  });
});

describe('callJson: the answer as JSON text, for a caller that forwards it', () => {
  it('is the text the core sent, byte for byte, when the core says it is JSON', async () => {
    const sent = '{"items": [{"id": "dec-1", "text": "Ship \\u201cAtlas\\u201d"}], "next_cursor": null}';
    const { client } = await setUp(() => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: sent }));
    await expect(client.callJson('listDecisions', { deployment_id: 'd1' })).resolves.toBe(sent);
  });

  it('refuses an answer that is not JSON, as call does', async () => {
    const { client } = await setUp(() => ({ status: 200, body: '<html>sign in</html>' }));
    await expect(client.callJson('listDecisions', { deployment_id: 'd1' })).rejects.toThrow('a body that is not JSON');
  });

  it('is the read-back record after a write answered 503', async () => {
    const { client } = await setUp((request) =>
      request.method === 'PATCH' ? problem(503) : { status: 200, body: decision('superseded') },
    );
    const json = await client.callJson('updateDecision', { deployment_id: 'd1', decision_id: 'dec-1', status: 'superseded' });
    expect(JSON.parse(json)).toEqual(decision('superseded'));
  });
});
