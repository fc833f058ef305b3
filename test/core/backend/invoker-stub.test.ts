import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { BackendRequest, SEARCH_MEMORY_TOOL } from '../../../src/contract/index.js';
import { createEphemeralTlsMaterial } from '../../../src/tls/index.js';
import {
  FALLBACK,
  SECRET,
  TLS,
  startProxy,
  startTestStub,
  testInvoker,
  useBackendFixture,
  type ScriptedServer,
  type TestStub,
} from './helpers.js';

// The core's invoker against the real reference backend (`memory agent-stub`) over TLS.
describe('invoker -> agent stub over TLS', () => {
  const fixture = useBackendFixture();

  async function stub(options: Parameters<typeof startTestStub>[0] = {}): Promise<TestStub> {
    const started = await startTestStub(options);
    fixture.defer(() => started.close());
    return started;
  }

  async function proxy(target: string, alter?: (body: Buffer) => Buffer): Promise<ScriptedServer> {
    const started = await startProxy(target, alter);
    fixture.defer(() => started.close());
    return started;
  }

  function invoker(options: Parameters<typeof testInvoker>[1] = {}) {
    const created = testInvoker(fixture.memory, options);
    fixture.defer(() => created.close());
    return created;
  }

  it('a correctly signed request is answered and the answer is spoken', async () => {
    const backend = await stub();
    await fixture.memory.register(fixture.memory.atlas, { url: backend.url });
    const teammate = invoker();
    const result = await teammate.ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, meetingId: fixture.memory.atlasMeetingId, utterance: 'Hello Atlas' });
    expect(result).toMatchObject({ spoken: 'You said: Hello Atlas', fallback: false, failure: null, meeting_id: fixture.memory.atlasMeetingId });
    expect(result.rounds).toHaveLength(1);
    expect(result.rounds[0]).toMatchObject({ round: 1, status: 200, verdict: 'answered', tool_calls: [], failure: null });
    expect(backend.calls).toEqual([expect.objectContaining({ verdict: 'answered', status: 200, round: 1 })]);
    expect(teammate.logs).toEqual([expect.objectContaining({ outcome: 'answered', reason: null, invocation_id: result.invocation_id })]);
  });

  it('sends a request inside the contract, signed over exactly the bytes sent, matching openssl', async () => {
    const backend = await stub();
    const recorder = await proxy(backend.url);
    await fixture.memory.register(fixture.memory.atlas, { url: recorder.url, timeoutMs: 7000 });
    const result = await invoker().ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, utterance: 'What did we decide?' });
    expect(result.fallback).toBe(false);
    const [sent] = recorder.received;
    const body = BackendRequest.parse(JSON.parse(sent!.body.toString('utf8')));
    expect(body.system).toContain('You are Atlas');
    expect(body.messages).toEqual([{ role: 'user', content: 'What did we decide?' }]);
    expect(body.tools).toEqual([SEARCH_MEMORY_TOOL]);
    expect(body.metadata).toMatchObject({ deployment_id: fixture.memory.atlas.id, invocation_id: result.invocation_id, timeout_ms: 7000, round: 1 });
    expect(body.metadata.meeting_id).toBe(result.meeting_id);
    expect(Math.abs(Date.parse(body.metadata.sent_at) - Date.now())).toBeLessThan(5000);

    const dir = await mkdtemp(join(tmpdir(), 'mm-openssl-'));
    try {
      const file = join(dir, 'body.json');
      await writeFile(file, sent!.body);
      const digest = execFileSync('openssl', ['dgst', '-sha256', '-hmac', SECRET, '-r', file], { encoding: 'utf8' });
      expect(sent!.headers['x-service-signature']).toBe(`sha256=${digest.trim().split(/\s+/)[0]}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a body altered on the way (signature no longer matches) is refused by the stub, and the fallback is spoken', async () => {
    const backend = await stub();
    const tamperer = await proxy(backend.url, (body) => Buffer.from(body.toString('utf8').replace('pricing', 'Pricing')));
    await fixture.memory.register(fixture.memory.atlas, { url: tamperer.url });
    const teammate = invoker();
    const result = await teammate.ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, utterance: 'What about pricing?' });
    expect(result).toMatchObject({ spoken: FALLBACK, fallback: true, failure: { code: 'http-status' } });
    expect(result.failure!.detail).toMatch(/401.*bad-signature/);
    expect(result.rounds[0]).toMatchObject({ status: 401, verdict: 'failed' });
    expect(backend.calls).toEqual([expect.objectContaining({ verdict: 'bad-signature', status: 401 })]);
    expect(teammate.logs[0]).toMatchObject({ outcome: 'fallback', reason: { code: 'http-status' }, last_status: 401 });
  });

  it('a backend holding another secret refuses the request, and the fallback is spoken', async () => {
    const backend = await stub({ secret: 'a-different-secret-entirely-0000' });
    await fixture.memory.register(fixture.memory.atlas, { url: backend.url });
    const result = await invoker().ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, utterance: 'Hello' });
    expect(result).toMatchObject({ spoken: FALLBACK, fallback: true, failure: { code: 'http-status' } });
    expect(result.failure!.detail).toMatch(/401/);
    expect(backend.calls.map((call) => call.verdict)).toEqual(['bad-signature']);
  });

  it('the same signed request sent again is refused by the stub as a replay', async () => {
    const backend = await stub();
    const recorder = await proxy(backend.url);
    await fixture.memory.register(fixture.memory.atlas, { url: recorder.url });
    const result = await invoker().ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, utterance: 'Hello' });
    expect(result.fallback).toBe(false);
    const [sent] = recorder.received;
    const dispatcher = new Agent({ connect: { ca: TLS.ca } });
    try {
      const replay = await request(backend.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': String(sent!.headers['x-service-signature']) },
        body: sent!.body,
        dispatcher,
      });
      expect(replay.statusCode).toBe(409);
      expect(await replay.body.json()).toMatchObject({ type: 'urn:meeting-memory:agent-stub:replayed-request' });
    } finally {
      await dispatcher.close();
    }
  });

  it('a tool round runs searchMemory in the invoking deployment only and the answer comes from its memory', async () => {
    const backend = await stub({ mode: { kind: 'tool-demo' } });
    const recorder = await proxy(backend.url);
    await fixture.memory.register(fixture.memory.atlas, { url: recorder.url });
    await fixture.memory.register(fixture.memory.juniper, { url: recorder.url });
    const teammate = invoker();

    const atlas = await teammate.ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, utterance: 'launch date' });
    expect(atlas.fallback).toBe(false);
    expect(atlas.spoken).toContain('June 3 for Atlas');
    expect(atlas.spoken).not.toContain('Juniper');
    expect(atlas.rounds.map((round) => [round.round, round.verdict])).toEqual([
      [1, 'tool_calls'],
      [2, 'answered'],
    ]);
    expect(atlas.rounds[0]!.tool_calls).toEqual([expect.objectContaining({ name: 'searchMemory', query: 'launch date' })]);
    expect(atlas.rounds[0]!.tool_calls[0]!.results).toBeGreaterThan(0);

    // The follow-up repeats the conversation, then the assistant's tool call and one tool message per call.
    const followUp = BackendRequest.parse(JSON.parse(recorder.received[1]!.body.toString('utf8')));
    expect(followUp.metadata.round).toBe(2);
    expect(followUp.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    const [, assistant, tool] = followUp.messages;
    expect(assistant).toMatchObject({ role: 'assistant', tool_calls: [{ name: 'searchMemory', arguments: { query: 'launch date' } }] });
    expect(tool).toMatchObject({ role: 'tool', tool_call_id: (assistant as { tool_calls: { id: string }[] }).tool_calls[0]!.id });
    const toolResult = JSON.parse((tool as { content: string }).content) as { results: { deployment_id: string; text: string }[] };
    expect(toolResult.results.length).toBeGreaterThan(0);
    expect(toolResult.results.every((record) => record.deployment_id === fixture.memory.atlas.id)).toBe(true);

    const juniper = await teammate.ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.juniper, utterance: 'launch date' });
    expect(juniper.spoken).toContain('September 9 for Juniper');
    expect(juniper.spoken).not.toContain('Atlas');
  });

  it('a certificate the core does not trust is a TLS failure and the fallback is spoken', async () => {
    const backend = await stub();
    await fixture.memory.register(fixture.memory.atlas, { url: backend.url });
    const result = await invoker({ extraCa: createEphemeralTlsMaterial(['127.0.0.1']).ca }).ask({
      tenantId: fixture.memory.tenantId,
      deployment: fixture.memory.atlas,
      utterance: 'Hello',
    });
    expect(result).toMatchObject({ spoken: FALLBACK, fallback: true, failure: { code: 'tls' } });
    expect(backend.calls).toEqual([]);
  });

  it('plain http reaches a loopback stub only when the operator allows loopback backends', async () => {
    const backend = await stub({ tls: false });
    await fixture.memory.register(fixture.memory.atlas, { url: backend.url });
    const allowed = await invoker().ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, utterance: 'Hi' });
    expect(allowed).toMatchObject({ spoken: 'You said: Hi', fallback: false });
    const refused = await invoker({ policy: { allowLoopback: false, allowPrivate: false } }).ask({
      tenantId: fixture.memory.tenantId,
      deployment: fixture.memory.atlas,
      utterance: 'Hi',
    });
    expect(refused).toMatchObject({ fallback: true, failure: { code: 'url-refused' }, rounds: [] });
    expect(backend.calls).toHaveLength(1);
  });

  it('signs with the secret its reference holds when the call is made', async () => {
    const backend = await stub({ secret: 'rotated-secret-abcdefghijklmnop' });
    await fixture.memory.register(fixture.memory.atlas, { url: backend.url, secretRef: 'env:MM_ROTATED' });
    const env = { MM_ROTATED: 'old-secret-before-rotation-000000' };
    const teammate = invoker({ env });
    expect((await teammate.ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, utterance: 'x' })).fallback).toBe(true);
    env.MM_ROTATED = 'rotated-secret-abcdefghijklmnop';
    expect((await teammate.ask({ tenantId: fixture.memory.tenantId, deployment: fixture.memory.atlas, utterance: 'x' })).spoken).toBe('You said: x');
  });
});
