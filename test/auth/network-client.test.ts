import { createServer, type Server } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { AuthError } from '@azure/msal-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMsalNetworkClient, type MsalNetworkClient } from '../../src/auth/network-client.js';
import { createEphemeralTlsMaterial } from '../../src/tls/index.js';

const material = createEphemeralTlsMaterial([]);
let server: Server;
let origin: string;
const clients: MsalNetworkClient[] = [];

function client(options: Parameters<typeof createMsalNetworkClient>[0]): MsalNetworkClient {
  const created = createMsalNetworkClient(options);
  clients.push(created);
  return created;
}

async function failure(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AuthError);
  return error as AuthError;
}

beforeAll(async () => {
  server = createServer({ key: material.key, cert: material.cert }, (request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/slow') return void setTimeout(() => response.end('{}'), 2000);
      if (request.url === '/html') return void response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
      const status = request.url === '/refuse' ? 400 : 200;
      response.writeHead(status, { 'content-type': 'application/json', 'x-trace': 'abc', 'set-cookie': ['a=1', 'b=2'] });
      response.end(
        JSON.stringify({ method: request.method, url: request.url, contentType: request.headers['content-type'] ?? null, body }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(clients.map((created) => created.close()));
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('createMsalNetworkClient', () => {
  it('GETs and POSTs JSON over TLS trusted through the extra CA, as MSAL expects the answer', async () => {
    const network = client({ ca: material.ca });
    const got = await network.sendGetRequestAsync<{ method: string; url: string }>(`${origin}/v2.0/.well-known/openid-configuration`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ method: 'GET', url: '/v2.0/.well-known/openid-configuration' });
    expect(got.headers['x-trace']).toBe('abc');
    expect(got.headers['set-cookie']).toBe('a=1, b=2');

    const posted = await network.sendPostRequestAsync<{ method: string; contentType: string; body: string }>(`${origin}/token`, {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=utf-8' },
      body: 'grant_type=client_credentials&scope=x',
    });
    expect(posted.body).toEqual({
      method: 'POST',
      url: '/token',
      contentType: 'application/x-www-form-urlencoded;charset=utf-8',
      body: 'grant_type=client_credentials&scope=x',
    });
  });

  it('hands an error status and its JSON body to MSAL instead of throwing', async () => {
    const answer = await client({ ca: material.ca }).sendPostRequestAsync(`${origin}/refuse`, { body: 'x=1' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ url: '/refuse', body: 'x=1' });
  });

  it('refuses a server whose CA it was not given, naming the certificate problem', async () => {
    const error = await failure(client({}).sendGetRequestAsync(`${origin}/`));
    expect(error.errorCode).toBe('network_error');
    expect(error.errorMessage).toMatch(/certificate/i);
    const stranger = createEphemeralTlsMaterial([]);
    expect((await failure(client({ ca: stranger.ca }).sendGetRequestAsync(`${origin}/`))).errorCode).toBe('network_error');
  });

  it('refuses an answer that is not JSON', async () => {
    const error = await failure(client({ ca: material.ca }).sendGetRequestAsync(`${origin}/html`));
    expect(error.errorCode).toBe('token_parsing_error');
    expect(error.errorMessage).toMatch(/HTTP 502/);
  });

  it('gives up after its own timeout, or the one MSAL passes', async () => {
    const quick = client({ ca: material.ca, timeoutMs: 150 });
    expect((await failure(quick.sendPostRequestAsync(`${origin}/slow`, { body: '' }))).errorMessage).toMatch(/timed out after 150 ms/);
    const patient = client({ ca: material.ca });
    expect((await failure(patient.sendGetRequestAsync(`${origin}/slow`, {}, 100))).errorMessage).toMatch(/timed out after 100 ms/);
  });

  it('reports a refused connection with its code', async () => {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const error = await failure(client({ ca: material.ca }).sendGetRequestAsync(`https://127.0.0.1:${port}/`));
    expect(error.errorMessage).toMatch(/ECONNREFUSED/);
  });
});
