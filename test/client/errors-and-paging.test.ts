import { createServer, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import {
  createAdminClient,
  createMemoryClient,
  fetchDeployments,
  MemoryApiError,
  MemoryClientError,
  MemoryConnectionError,
  type TransportKind,
} from '../../src/client/index.js';
import { createEphemeralTlsMaterial } from '../../src/tls/index.js';
import { problem, startClientHarness, startRecordingServer, type ClientHarness, type Responder } from './recording-server.js';

let harness: ClientHarness | undefined;
let transport: TransportKind = 'undici';

async function setUp(respond: Responder, tls?: { cert: string; key: string }, ca?: string): Promise<ClientHarness> {
  harness = await startClientHarness(respond, { tls, ca, retry: { readAttempts: 1 }, transport });
  return harness;
}

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A server that accepts connections and requests and never answers them. */
async function startSilentServer(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe.each(['undici', 'node'] as const)('over %s', (kind) => {
  beforeEach(() => {
    transport = kind;
  });

  describe('errors', () => {
    it('carries status and the problem document with invalid_params', async () => {
      const invalid = [{ name: 'due_date', in: 'body', reason: 'must be a date in the form YYYY-MM-DD' }];
      const { client } = await setUp(() => problem(400, { detail: 'The request has invalid parameters.', invalid_params: invalid }));
      const error = (await client
        .updateActionItem({ deployment_id: 'd1', action_item_id: 'a1', due_date: 'soon' })
        .catch((caught: unknown) => caught)) as MemoryApiError;
      expect(error).toBeInstanceOf(MemoryApiError);
      expect(error).toBeInstanceOf(MemoryClientError);
      expect(error.status).toBe(400);
      expect(error.operation).toBe('updateActionItem');
      expect(error.invalidParams).toEqual(invalid);
      expect(error.requestId).toBe('req-400');
      expect(error.message).toBe('The request has invalid parameters.');
    });

    it('synthesises a problem document when the failure body is not one', async () => {
      const { client } = await setUp(() => ({ status: 502, body: 'Bad gateway from the proxy' }));
      const error = (await client.listDeployments().catch((caught: unknown) => caught)) as MemoryApiError;
      expect(error.status).toBe(502);
      expect(error.problem).toMatchObject({ type: 'about:blank', status: 502, detail: 'Bad gateway from the proxy' });
    });

    it('refuses a success body that is not JSON', async () => {
      const { client } = await setUp(() => ({ status: 200, body: '<html>' }));
      const error = await client.listDeployments().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MemoryClientError);
      expect(error).not.toBeInstanceOf(MemoryApiError);
    });

    it('reports an unreachable core as a connection error with the socket code', async () => {
      const port = await freePort();
      const unreachable = createMemoryClient({ baseUrl: `http://127.0.0.1:${port}/v1`, token: 't', transport });
      try {
        const error = (await unreachable.listDeployments().catch((caught: unknown) => caught)) as MemoryConnectionError;
        expect(error).toBeInstanceOf(MemoryConnectionError);
        expect(error.code).toBe('ECONNREFUSED');
        expect(error.url).toBe(`http://127.0.0.1:${port}/v1/deployments`);
      } finally {
        await unreachable.close();
      }
    });

    it('trusts a self-hosted core only through the given CA', async () => {
      const material = createEphemeralTlsMaterial(['127.0.0.1']);
      const { server, client } = await setUp(() => ({ status: 200, body: { items: [] } }), material, material.ca);
      await expect(client.listDeployments()).resolves.toEqual({ items: [] });

      const untrusting = createMemoryClient({ baseUrl: server.baseUrl, token: 't', transport });
      try {
        const error = (await untrusting.listDeployments().catch((caught: unknown) => caught)) as MemoryConnectionError;
        expect(error).toBeInstanceOf(MemoryConnectionError);
        expect(error.code).toMatch(/CERT|SIGNATURE|ISSUER/);
      } finally {
        await untrusting.close();
      }
    });

    it('delivers every body whole: a DELETE\'s JSON, a PATCH\'s, and a streamed upload', async () => {
      const { server } = await setUp(() => ({ status: 200, body: {} }));
      const admin = createAdminClient({ baseUrl: server.baseUrl, token: 't', transport });
      try {
        await admin.call('revokeGrant', { client_id: 'c1', deployment_id: 'd1' });
        await admin.importMeeting({ deployment_id: 'd1' }, {
          data: Readable.from([Buffer.from('{"meeting":'), Buffer.from('"m1"}')]),
          contentType: 'application/json',
        });
      } finally {
        await admin.close();
      }
      await harness!.client.updateActionItem({ deployment_id: 'd1', action_item_id: 'a1', status: 'done' });
      expect(server.requests.map((request) => [request.method, request.body])).toEqual([
        ['DELETE', '{}'],
        ['POST', '{"meeting":"m1"}'],
        ['PATCH', '{"status":"done"}'],
      ]);
    });

    it('gives up on a core that never answers after timeoutMs, as a connection error', async () => {
      const silent = await startSilentServer();
      const client = createMemoryClient({ baseUrl: silent.baseUrl, token: 't', transport, timeoutMs: 200, retry: { readAttempts: 1 } });
      try {
        const error = await client.listDeployments().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(MemoryConnectionError);
      } finally {
        await client.close();
        await silent.close();
      }
    });
  });

  describe('paging', () => {
    const pages: Record<string, { items: { id: string }[]; next_cursor: string | null }> = {
      '': { items: [{ id: 'a' }, { id: 'b' }], next_cursor: 'c2' },
      c2: { items: [{ id: 'c' }], next_cursor: 'c3' },
      c3: { items: [{ id: 'd' }], next_cursor: null },
    };

    it('paginate follows next_cursor and yields every record, keeping the filters', async () => {
      const { server, client } = await setUp((request) => ({ status: 200, body: pages[request.query.get('cursor') ?? '']! }));
      const ids: string[] = [];
      for await (const record of client.paginate('listDecisions', { deployment_id: 'd1', limit: 2, since: '2025-01-01' })) {
        ids.push(record.id);
      }
      expect(ids).toEqual(['a', 'b', 'c', 'd']);
      expect(server.requests.map((request) => request.rawQuery)).toEqual([
        '?limit=2&since=2025-01-01',
        '?limit=2&since=2025-01-01&cursor=c2',
        '?limit=2&since=2025-01-01&cursor=c3',
      ]);
    });

    it('pages starts from the given cursor and reads search results', async () => {
      const { server, client } = await setUp((request) => ({
        status: 200,
        body: { results: [{ id: request.query.get('cursor') }], next_cursor: null, was_capped: false },
      }));
      const seen: unknown[] = [];
      for await (const page of client.pages('searchMemory', { deployment_id: 'd1', query: 'x', cursor: 'start' })) seen.push(page);
      expect(seen).toEqual([{ results: [{ id: 'start' }], next_cursor: null, was_capped: false }]);
      const results: unknown[] = [];
      for await (const result of client.paginate('searchMemory', { deployment_id: 'd1', query: 'x', cursor: 'again' })) {
        results.push(result);
      }
      expect(results).toEqual([{ id: 'again' }]);
      expect(server.requests).toHaveLength(2);
    });
  });
});

describe('fetchDeployments', () => {
  it('returns the deployments of GET /deployments and closes its client', async () => {
    const server = await startRecordingServer(() => ({ status: 200, body: { items: [{ id: 'd1', name: 'Sales bot' }] } }));
    try {
      await expect(fetchDeployments({ baseUrl: server.baseUrl, token: 't' })).resolves.toEqual([{ id: 'd1', name: 'Sales bot' }]);
      expect(server.requests[0]!.path).toBe('/v1/deployments');
    } finally {
      await server.close();
    }
  });
});
