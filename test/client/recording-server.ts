import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createMemoryClient, type MemoryClient, type RetryOptions, type TransportKind } from '../../src/client/index.js';

/** A request as the test server saw it. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, still percent-encoded. */
  path: string;
  query: URLSearchParams;
  rawQuery: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** What the test server answers; `body` is sent as JSON unless it is a string. */
export interface CannedResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export type Responder = (request: RecordedRequest, index: number) => CannedResponse;

export interface RecordingServer {
  origin: string;
  /** `${origin}/v1`, the REST root a client is given. */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP(S) server on 127.0.0.1 with an ephemeral port that records every request and answers with what
 * `respond` says: the network side of the client's unit tests.
 */
export async function startRecordingServer(
  respond: Responder,
  tls?: { cert: string; key: string },
): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const handler = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://test');
      const request: RecordedRequest = {
        method: incoming.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        rawQuery: url.search,
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const answer = respond(request, requests.length - 1);
      const text = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      const contentType =
        typeof answer.body === 'string' ? 'text/plain' : answer.status >= 400 ? 'application/problem+json' : 'application/json';
      outgoing.writeHead(answer.status, { 'content-type': contentType, ...answer.headers });
      outgoing.end(text);
    });
  };
  const server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** An RFC 9457 problem document as the core answers it. */
export function problem(status: number, extra: Record<string, unknown> = {}): CannedResponse {
  return {
    status,
    body: { type: `/v1/problems/p${status}`, title: `Problem ${status}`, status, request_id: `req-${status}`, ...extra },
  };
}

/** A recording server and a memory client pointed at it. */
export interface ClientHarness {
  server: RecordingServer;
  client: MemoryClient;
  close(): Promise<void>;
}

/** Starts a recording server and a client of it; `close` stops both. */
export async function startClientHarness(
  respond: Responder,
  options: {
    retry?: RetryOptions;
    tls?: { cert: string; key: string };
    ca?: string;
    transport?: TransportKind;
    timeoutMs?: number;
  } = {},
): Promise<ClientHarness> {
  const server = await startRecordingServer(respond, options.tls);
  const { ca, retry, transport, timeoutMs } = options;
  const client = createMemoryClient({ baseUrl: server.baseUrl, token: 't', ca, retry, transport, timeoutMs });
  return {
    server,
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}
