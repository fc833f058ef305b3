import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { BackendRequest, MAX_TOOL_ROUNDS } from '../../../src/contract/index.js';
import { MAX_TOOL_CALLS_PER_ROUND, systemResolver, type Resolver } from '../../../src/core/backend/index.js';
import {
  FALLBACK,
  sendJson,
  startScriptedServer,
  startTestStub,
  testInvoker,
  useBackendFixture,
  type Captured,
} from './helpers.js';

/** How late the fallback may come after the budget: timer and scheduling slack on a busy two-core machine. */
const BUDGET_MARGIN_MS = 400;

function toolCall(id: string, name = 'searchMemory', args: Record<string, unknown> = { query: 'launch' }) {
  return { id, name, arguments: args };
}

describe('invoker failures: the fallback is spoken and the reason logged', () => {
  const fixture = useBackendFixture();

  /** Registers a scripted backend for Atlas and asks it something. */
  async function askScripted(
    handle: (captured: Captured, res: ServerResponse, index: number) => void | Promise<void>,
    registration: { timeoutMs?: number } = {},
    options: Parameters<typeof testInvoker>[1] = {},
  ) {
    const server = await startScriptedServer(handle);
    fixture.defer(() => server.close());
    await fixture.memory.register(fixture.memory.atlas, { url: server.url, ...registration });
    const teammate = testInvoker(fixture.memory, options);
    fixture.defer(() => teammate.close());
    const started = performance.now();
    const result = await teammate.ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, utterance: 'What is the launch date?' });
    return { result, elapsed: performance.now() - started, server, logs: teammate.logs };
  }

  it('a backend that sleeps past the budget: the fallback is spoken within the budget plus a small margin', async () => {
    const { result, elapsed, logs } = await askScripted(
      (_captured, res) => {
        setTimeout(() => sendJson(res, 200, { content: 'too late' }), 4000).unref();
      },
      { timeoutMs: 1000 },
    );
    expect(result).toMatchObject({ spoken: FALLBACK, fallback: true, failure: { code: 'timeout' }, timeout_ms: 1000 });
    expect(elapsed).toBeGreaterThanOrEqual(990);
    expect(elapsed).toBeLessThan(1000 + BUDGET_MARGIN_MS);
    expect(result.rounds[0]).toMatchObject({ verdict: 'failed', status: null, failure: { code: 'timeout' } });
    expect(result.rounds[0]!.latency_ms).toBeGreaterThanOrEqual(900);
    expect(logs[0]).toMatchObject({ outcome: 'fallback', reason: { code: 'timeout' } });
  });

  it('the budget covers every round: a backend slow across tool rounds is cut off at the budget', async () => {
    const { result, elapsed } = await askScripted(
      (_captured, res, index) => {
        setTimeout(() => sendJson(res, 200, { content: '', tool_calls: [toolCall(`c${index}`)], finish_reason: 'tool_calls' }), 400).unref();
      },
      { timeoutMs: 1000 },
    );
    expect(result.failure).toMatchObject({ code: 'timeout' });
    expect(result.rounds.length).toBeGreaterThanOrEqual(2);
    expect(elapsed).toBeLessThan(1000 + BUDGET_MARGIN_MS);
  });

  it('a 2 MB answer is abandoned past 1 MB, whether announced by content-length or streamed', async () => {
    const big = JSON.stringify({ content: 'x'.repeat(2 * 1024 * 1024) });
    const announced = await askScripted((_captured, res) => sendJson(res, 200, JSON.parse(big)));
    expect(announced.result).toMatchObject({ spoken: FALLBACK, failure: { code: 'body-too-large' } });

    let written = 0;
    const streamed = await askScripted((_captured, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = big.slice(0, 64 * 1024);
      const pump = () => {
        while (written < big.length && res.write(chunk)) written += chunk.length;
        if (written < big.length) res.once('drain', pump);
        else res.end();
      };
      res.on('error', () => undefined);
      pump();
    });
    expect(streamed.result).toMatchObject({ spoken: FALLBACK, failure: { code: 'body-too-large' } });
    expect(streamed.result.rounds[0]).toMatchObject({ status: 200, response_bytes: null });
  });

  it('a redirect is not followed', async () => {
    let followed = false;
    const target = await startScriptedServer((_captured, res) => {
      followed = true;
      sendJson(res, 200, { content: 'redirected' });
    });
    fixture.defer(() => target.close());
    const { result } = await askScripted((_captured, res) => {
      res.writeHead(307, { location: target.url });
      res.end();
    });
    expect(result).toMatchObject({ spoken: FALLBACK, failure: { code: 'redirect-refused' } });
    expect(result.rounds[0]!.status).toBe(307);
    expect(followed).toBe(false);
  });

  it.each([
    ['a non-2xx status', 'http-status', (res: ServerResponse) => sendJson(res, 500, { detail: 'boom' })],
    ['a body that is not JSON', 'invalid-json', (res: ServerResponse) => res.end('<html>hi</html>')],
    ['a body without content', 'invalid-response', (res: ServerResponse) => sendJson(res, 200, { text: 'hi' })],
    ['content that is not a string', 'invalid-response', (res: ServerResponse) => sendJson(res, 200, { content: 42 })],
    ['empty content', 'empty-content', (res: ServerResponse) => sendJson(res, 200, { content: '  ' })],
    ['finish_reason tool_calls without calls', 'invalid-response', (res: ServerResponse) => sendJson(res, 200, { content: '', finish_reason: 'tool_calls' })],
    ['an unknown tool', 'unknown-tool', (res: ServerResponse) => sendJson(res, 200, { content: '', tool_calls: [toolCall('c1', 'deleteEverything')] })],
    ['a search without a query', 'invalid-tool-arguments', (res: ServerResponse) => sendJson(res, 200, { content: '', tool_calls: [toolCall('c1', 'searchMemory', {})] })],
    [
      'too many calls in one answer',
      'too-many-tool-calls',
      (res: ServerResponse) =>
        sendJson(res, 200, { content: '', tool_calls: Array.from({ length: MAX_TOOL_CALLS_PER_ROUND + 1 }, (_, i) => toolCall(`c${i}`)) }),
    ],
  ])('%s is a failure (%s)', async (_name, code, answer) => {
    const { result, logs } = await askScripted((_captured, res) => answer(res));
    expect(result).toMatchObject({ spoken: FALLBACK, fallback: true, failure: { code } });
    expect(result.rounds[0]).toMatchObject({ verdict: 'failed', failure: { code } });
    expect(logs[0]).toMatchObject({ outcome: 'fallback', reason: { code } });
  });

  it(`at most ${MAX_TOOL_ROUNDS} tool rounds: a backend that keeps asking is cut off`, async () => {
    const { result, server } = await askScripted((_captured, res, index) =>
      sendJson(res, 200, { content: '', tool_calls: [toolCall(`c${index}`)], finish_reason: 'tool_calls' }),
    );
    expect(result).toMatchObject({ spoken: FALLBACK, failure: { code: 'too-many-tool-rounds' } });
    expect(result.rounds.map((round) => round.round)).toEqual([1, 2, 3, 4, 5]);
    const rounds = server.received.map((captured) => BackendRequest.parse(JSON.parse(captured.body.toString('utf8'))).metadata.round);
    expect(rounds).toEqual([1, 2, 3, 4, 5]);
    const invocations = new Set(server.received.map((captured) => JSON.parse(captured.body.toString('utf8')).metadata.invocation_id));
    expect(invocations.size).toBe(1);
  });

  it('a secret reference that cannot be resolved: nothing is sent', async () => {
    const server = await startScriptedServer((_captured, res) => sendJson(res, 200, { content: 'hi' }));
    fixture.defer(() => server.close());
    await fixture.memory.register(fixture.memory.atlas, { url: server.url, secretRef: 'env:MM_NOT_SET_ANYWHERE' });
    const teammate = testInvoker(fixture.memory);
    fixture.defer(() => teammate.close());
    const result = await teammate.ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, utterance: 'hi' });
    expect(result).toMatchObject({ spoken: FALLBACK, failure: { code: 'secret-unresolvable' }, rounds: [] });
    expect(result.failure!.detail).toContain('MM_NOT_SET_ANYWHERE');
    expect(server.received).toHaveLength(0);
  });

  it('a deployment without a registered backend speaks the default fallback line', async () => {
    const teammate = testInvoker(fixture.memory);
    fixture.defer(() => teammate.close());
    const result = await teammate.ask({ tenantId: fixture.memory.tenantId, deployment: { id: crypto.randomUUID(), name: 'Nobody' }, utterance: 'hi' });
    expect(result).toMatchObject({ fallback: true, failure: { code: 'no-backend' }, backend_url: null });
    expect(result.spoken.length).toBeGreaterThan(0);
  });
});

describe('invoker address checks', () => {
  const fixture = useBackendFixture();

  /** Resolves `agent.test` to the given addresses, anything else as the system does. */
  function resolverFor(addresses: string[]): Resolver {
    return async (hostname, options) =>
      hostname === 'agent.test' ? addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })) : systemResolver(hostname, options);
  }

  async function ask(url: string, options: Parameters<typeof testInvoker>[1], timeoutMs = 5000) {
    await fixture.memory.register(fixture.memory.atlas, { url, timeoutMs });
    const teammate = testInvoker(fixture.memory, options);
    fixture.defer(() => teammate.close());
    return teammate.ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, utterance: 'Hello' });
  }

  it.each([
    ['https://10.0.0.5/agent', /private/],
    ['https://192.168.1.20/agent', /private/],
    ['https://169.254.169.254/latest/meta-data', /metadata/],
    ['https://[fd00:ec2::254]/', /metadata/],
    ['https://[fe80::1]/', /link-local/],
    ['https://localhost:8443/', /loopback/],
    ['http://agent.example.com/', /must be https/],
    ['https://user:pw@agent.example.com/', /credentials/],
  ])('%s registered anyway is refused at call time, nothing sent', async (url, reason) => {
    const result = await ask(url, { policy: { allowLoopback: false, allowPrivate: false } });
    expect(result).toMatchObject({ spoken: FALLBACK, fallback: true, failure: { code: 'url-refused' }, rounds: [] });
    expect(result.failure!.detail).toMatch(reason);
  });

  it('a host name that resolves to a private address is refused after resolution, before connecting', async () => {
    const result = await ask('https://agent.test:9/agent', { resolve: resolverFor(['10.20.30.40']) });
    expect(result).toMatchObject({ spoken: FALLBACK, failure: { code: 'address-refused' } });
    expect(result.failure!.detail).toMatch(/agent\.test resolves to 10\.20\.30\.40 is a private address/);
    expect(result.rounds[0]).toMatchObject({ status: null, verdict: 'failed' });
  });

  it('one refused address among the answers refuses the name', async () => {
    const result = await ask('https://agent.test:9/agent', { resolve: resolverFor(['127.0.0.1', '169.254.169.254']) });
    expect(result.failure).toMatchObject({ code: 'address-refused' });
    expect(result.failure!.detail).toMatch(/metadata/);
  });

  it('a name resolving to loopback reaches the stub when loopback is allowed, and is refused when it is not', async () => {
    const stub = await startTestStub();
    fixture.defer(() => stub.close());
    const url = stub.url.replace('127.0.0.1', 'agent.test');
    const allowed = await ask(url, { resolve: resolverFor(['127.0.0.1']) });
    expect(allowed).toMatchObject({ spoken: 'You said: Hello', fallback: false });
    const refused = await ask(url, { resolve: resolverFor(['127.0.0.1']), policy: { allowLoopback: false, allowPrivate: false } });
    expect(refused.failure).toMatchObject({ code: 'address-refused' });
    expect(refused.failure!.detail).toMatch(/loopback/);
    expect(stub.calls).toHaveLength(1);
  });

  it('--allow-private-backends lets a private literal through to the network', async () => {
    // 10.255.255.1 is routable nowhere here: the point is that the call was attempted, not refused.
    const result = await ask('https://10.255.255.1:9/agent', { policy: { allowLoopback: false, allowPrivate: true } }, 1000);
    expect(result.failure!.code).not.toBe('url-refused');
    expect(result.failure!.code).not.toBe('address-refused');
    expect(result.rounds).toHaveLength(1);
  });
});
