import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackendResponse, signBody } from '../../src/contract/index.js';
import { formatCallLog } from '../../src/agent-stub/call-log.js';
import { AgentStubConfigError, startAgentStub } from '../../src/agent-stub/server.js';
import { toTimestamp } from '../../src/agent-stub/timestamp.js';
import { SECRET, backendRequest, postRaw, postSigned, startTestStub, type TestStub } from './helpers.js';

describe('agent stub over TLS', () => {
  let stub: TestStub;

  beforeAll(async () => {
    stub = await startTestStub({ maxAgeSeconds: 60, maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await stub.close();
  });

  it('answers a correctly signed request in echo mode, inside the contract', async () => {
    const payload = backendRequest();
    const { status, json } = await postSigned(stub, payload);
    expect(status).toBe(200);
    const response = BackendResponse.parse(json);
    expect(response).toMatchObject({ content: 'You said: What did we decide about pricing?', tool_calls: null, finish_reason: 'stop' });
    expect(response.metadata?.latency_ms).toBeGreaterThanOrEqual(0);
    expect(response.metadata?.tokens_used).toBe(0);
    expect(stub.calls.at(-1)).toMatchObject({
      invocation_id: payload.metadata.invocation_id,
      round: 1,
      verdict: 'answered',
      status: 200,
      mode: 'echo',
    });
  });

  it('refuses a tampered body sent with the original signature', async () => {
    const body = JSON.stringify(backendRequest());
    const signature = signBody(SECRET, body);
    const tampered = body.replace('pricing', 'salaries');
    const { status, json } = await postRaw(stub, tampered, signature);
    expect(status).toBe(401);
    expect(json).toMatchObject({ type: 'urn:meeting-memory:agent-stub:bad-signature', status: 401 });
    expect(stub.calls.at(-1)).toMatchObject({ verdict: 'bad-signature', invocation_id: null, round: null });
  });

  it('refuses a request signed with another secret', async () => {
    const { status } = await postSigned(stub, backendRequest(), 'some-other-secret');
    expect(status).toBe(401);
  });

  it('refuses a request without a signature, and one with a malformed signature', async () => {
    const body = JSON.stringify(backendRequest());
    expect((await postRaw(stub, body, undefined)).status).toBe(401);
    expect((await postRaw(stub, body, 'sha256=00')).status).toBe(401);
  });

  it('refuses a replay of the same invocation round with 409, but answers the next round', async () => {
    const payload = backendRequest();
    const body = JSON.stringify(payload);
    const signature = signBody(SECRET, body);
    expect((await postRaw(stub, body, signature)).status).toBe(200);
    const replay = await postRaw(stub, body, signature);
    expect(replay.status).toBe(409);
    expect(stub.calls.at(-1)).toMatchObject({ verdict: 'replayed-request', invocation_id: payload.metadata.invocation_id, round: 1 });
    const next = backendRequest({ metadata: { ...payload.metadata, round: 2 } });
    expect((await postSigned(stub, next)).status).toBe(200);
  });

  it('refuses stale and future sent_at beyond max-age with 401', async () => {
    const stale = backendRequest({ metadata: { sent_at: toTimestamp(Date.now() - 120_000) } });
    const staleAnswer = await postSigned(stub, stale);
    expect(staleAnswer.status).toBe(401);
    expect(staleAnswer.json).toMatchObject({ type: 'urn:meeting-memory:agent-stub:stale-request' });
    const future = backendRequest({ metadata: { sent_at: toTimestamp(Date.now() + 120_000) } });
    expect((await postSigned(stub, future)).status).toBe(401);
    const slightlyOld = backendRequest({ metadata: { sent_at: toTimestamp(Date.now() - 30_000) } });
    expect((await postSigned(stub, slightlyOld)).status).toBe(200);
  });

  it('refuses a body over the cap with 413, whether announced or streamed', async () => {
    const big = JSON.stringify(backendRequest({ system: 'x'.repeat(100 * 1024) }));
    const announced = await postRaw(stub, big, signBody(SECRET, big));
    expect(announced.status).toBe(413);
    const chunked = await request(stub.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Readable.from(
        (function* () {
          for (let i = 0; i < 10; i += 1) yield Buffer.alloc(16 * 1024, 0x20);
        })(),
      ),
      dispatcher: stub.dispatcher,
    });
    await chunked.body.dump();
    expect(chunked.statusCode).toBe(413);
    expect(stub.calls.at(-1)).toMatchObject({ verdict: 'too-large', status: 413 });
  });

  it('refuses an invalid shape with 400 naming the field, and non-JSON with 400', async () => {
    const payload = backendRequest({ metadata: { round: 9 } });
    const { status, json } = await postSigned(stub, payload);
    expect(status).toBe(400);
    expect((json as { detail: string }).detail).toMatch(/metadata\.round/);
    const missing = { ...backendRequest(), messages: [] };
    expect(((await postSigned(stub, missing)).json as { detail: string }).detail).toMatch(/messages/);
    const notJson = '{"system":';
    const garbled = await postRaw(stub, notJson, signBody(SECRET, notJson));
    expect(garbled).toMatchObject({ status: 400, json: { type: 'urn:meeting-memory:agent-stub:invalid-json' } });
  });

  it('serves only POST with a JSON body', async () => {
    const get = await request(stub.url, { method: 'GET', dispatcher: stub.dispatcher });
    await get.body.dump();
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST');
    const body = JSON.stringify(backendRequest());
    const text = await postRaw(stub, body, signBody(SECRET, body), { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
  });
});

describe('agent stub start-up', () => {
  it('refuses plain http on a non-loopback host', async () => {
    await expect(startAgentStub({ secret: SECRET, host: '0.0.0.0', port: 0, tls: false })).rejects.toBeInstanceOf(AgentStubConfigError);
  });

  it('serves plain http on loopback when TLS is off', async () => {
    const stub = await startAgentStub({ secret: SECRET, port: 0, tls: false });
    try {
      expect(stub.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const body = JSON.stringify(backendRequest());
      const response = await request(stub.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, body) },
        body,
      });
      expect(response.statusCode).toBe(200);
      expect(await response.body.json()).toMatchObject({ finish_reason: 'stop' });
    } finally {
      await stub.close();
    }
  });

  it('refuses an empty secret', async () => {
    await expect(startAgentStub({ secret: '', port: 0, tls: false })).rejects.toThrow(/empty/);
  });

  it('answers 503 instead of forgetting live replay entries when its replay cache is full', async () => {
    const stub = await startTestStub({ replayCacheSize: 2 });
    try {
      expect((await postSigned(stub, backendRequest())).status).toBe(200);
      expect((await postSigned(stub, backendRequest())).status).toBe(200);
      const third = await postSigned(stub, backendRequest({ metadata: { invocation_id: randomUUID() } }));
      expect(third.status).toBe(503);
    } finally {
      await stub.close();
    }
  });
});

describe('call log lines', () => {
  const entry = {
    time: '2026-03-02T10:00:00Z',
    invocation_id: '0b9c3c3e-8a39-4a3e-9d0b-6f5b8c1f2a77',
    round: 2,
    verdict: 'answered',
    status: 200,
    latency_ms: 12,
    mode: 'echo',
  };

  it('is one readable line on a terminal and one JSON object otherwise', () => {
    expect(formatCallLog(entry, false)).toBe(
      '2026-03-02T10:00:00Z  200 answered  invocation 0b9c3c3e-8a39-4a3e-9d0b-6f5b8c1f2a77 round 2  12 ms',
    );
    const refused = { ...entry, invocation_id: null, round: null, verdict: 'bad-signature', status: 401, detail: 'x-service-signature is missing' };
    expect(formatCallLog(refused, false)).toBe('2026-03-02T10:00:00Z  401 bad-signature  invocation -  12 ms  (x-service-signature is missing)');
    expect(JSON.parse(formatCallLog(refused, true))).toEqual(refused);
  });
});
