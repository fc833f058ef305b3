import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryClient, type MemoryClient } from '../../src/client/index.js';
import { OPERATIONS, pathParams } from '../../src/contract/index.js';
import { startRecordingServer, type RecordingServer } from './recording-server.js';

/** A value for every input field any operation takes; a new field without one fails the first test. */
const SAMPLES: Record<string, unknown> = {
  deployment_id: 'dep 1/é',
  decision_id: 'dec-1',
  open_question_id: 'q_1',
  action_item_id: 'ai.1',
  meeting_id: 'm~1',
  since: '2025-01-01',
  until: '2025-01-31',
  limit: 5,
  cursor: 'c+1/=',
  order: 'asc',
  assignee_idp_id: '00000000-0000-4000-8000-000000000001',
  query: 'roadmap & plans',
  types: ['decision', 'topic'],
  text: 'Write the rollout doc',
  due_date: '2025-02-01',
  clear_due_date: true,
  note: 'agreed in standup',
  clear_note: false,
};

function statusFor(opName: string): string {
  return opName === 'updateDecision' ? 'superseded' : opName === 'resolveOpenQuestion' ? 'resolved' : 'done';
}

function sampleInput(op: (typeof OPERATIONS)[number]): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(op.input.shape).map((field) => [field, field === 'status' ? statusFor(op.name) : SAMPLES[field]]),
  );
}

let server: RecordingServer;
let client: MemoryClient;

beforeAll(async () => {
  server = await startRecordingServer((request) => ({
    status: request.method === 'POST' ? 201 : 200,
    body: { echo: request.path },
  }));
  client = createMemoryClient({ baseUrl: server.baseUrl, token: 'tok-123', userAgent: 'request-test/1' });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

describe('request building', () => {
  it('has a sample for every input field of every operation', () => {
    const missing = OPERATIONS.flatMap((op) => Object.keys(op.input.shape).filter((field) => !(field in SAMPLES) && field !== 'status'));
    expect(missing).toEqual([]);
  });

  for (const op of OPERATIONS) {
    it(`${op.name}: ${op.method} ${op.path}`, async () => {
      const input = sampleInput(op);
      const before = server.requests.length;
      const method = (client as unknown as Record<string, (input: object) => Promise<unknown>>)[op.name]!;
      await expect(method(input)).resolves.toEqual({ echo: expect.any(String) });
      expect(server.requests.length).toBe(before + 1);
      const seen = server.requests.at(-1)!;

      const inPath = pathParams(op);
      const expectedPath = inPath.reduce(
        (path, field) => path.replace(`{${field}}`, encodeURIComponent(String(input[field]))),
        `/v1${op.path}`,
      );
      expect(seen.method).toBe(op.method);
      expect(seen.path).toBe(expectedPath);
      expect(seen.headers.authorization).toBe('Bearer tok-123');
      expect(seen.headers['user-agent']).toBe('request-test/1');

      const rest = Object.entries(input)
        .filter(([field]) => !inPath.includes(field))
        .map(([field, value]) => [op.restNames?.[field] ?? field, value] as const);
      if (op.method === 'GET') {
        expect(seen.body).toBe('');
        const expected = rest.map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : String(value)]);
        expect([...seen.query.entries()].sort()).toEqual(expected.sort());
      } else {
        expect(seen.rawQuery).toBe('');
        expect(seen.headers['content-type']).toBe('application/json');
        expect(JSON.parse(seen.body)).toEqual(Object.fromEntries(rest));
      }
    });
  }

  it('renames search query to q and joins types with commas', async () => {
    await client.searchMemory({ deployment_id: 'd1', query: 'budget', types: ['decision', 'open_question'] });
    const seen = server.requests.at(-1)!;
    expect(seen.path).toBe('/v1/deployments/d1/search');
    expect(seen.rawQuery).toBe('?q=budget&types=decision%2Copen_question');
  });

  it('leaves undefined fields out and sends no query string when nothing is left', async () => {
    await client.listDecisions({ deployment_id: 'd1', since: undefined });
    expect(server.requests.at(-1)!.rawQuery).toBe('');
    await client.listDeployments();
    expect(server.requests.at(-1)!.path).toBe('/v1/deployments');
  });

  it('adds /v1 to a bare origin and keeps a base path with a trailing slash', async () => {
    const bare = createMemoryClient({ baseUrl: server.origin, token: 't' });
    const slashed = createMemoryClient({ baseUrl: `${server.origin}/v1/`, token: 't' });
    try {
      expect(bare.baseUrl).toBe(`${server.origin}/v1`);
      await bare.getMeeting({ deployment_id: 'd', meeting_id: 'm' });
      expect(server.requests.at(-1)!.path).toBe('/v1/deployments/d/meetings/m');
      await slashed.getMeeting({ deployment_id: 'd', meeting_id: 'm' });
      expect(server.requests.at(-1)!.path).toBe('/v1/deployments/d/meetings/m');
    } finally {
      await bare.close();
      await slashed.close();
    }
  });

  it('refuses a call whose path field is missing, before sending', async () => {
    const before = server.requests.length;
    await expect(client.call('getDecision', { deployment_id: 'd1' } as never)).rejects.toThrow(/decision_id is required/);
    expect(server.requests.length).toBe(before);
  });

  it.each([
    ['a promise', (token: string) => Promise.resolve(token)],
    ['the token itself', (token: string) => token],
  ])('asks the token function before every request, so a refreshed token is used (it returns %s)', async (_label, give) => {
    let issued = 0;
    const refreshing = createMemoryClient({ baseUrl: server.baseUrl, token: () => give(`t${++issued}`) });
    try {
      await refreshing.listDeployments();
      await refreshing.listDeployments();
      expect(server.requests.slice(-2).map((request) => request.headers.authorization)).toEqual(['Bearer t1', 'Bearer t2']);
    } finally {
      await refreshing.close();
    }
  });
});
