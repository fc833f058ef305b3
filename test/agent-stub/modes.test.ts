import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackendResponse, SEARCH_MEMORY_TOOL, type BackendRequest } from '../../src/contract/index.js';
import { CannedFileError, loadCannedReplies } from '../../src/agent-stub/canned-mode.js';
import { chatCompletionsUrl } from '../../src/agent-stub/forward-mode.js';
import { backendRequest, postSigned, startTestStub } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-stub-modes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cannedFile(name: string, content: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function ask(utterance: string, extra: Partial<BackendRequest> = {}): BackendRequest {
  return backendRequest({ messages: [{ role: 'user', content: utterance }], ...extra });
}

describe('canned mode', () => {
  it('answers with the first matching rule (substring, case-insensitive, or regex) and the default otherwise', async () => {
    const file = await cannedFile('replies.json', {
      replies: [
        { contains: 'BUDGET', reply: 'The budget was approved.' },
        { pattern: '^(hi|hello)\\b', flags: 'i', reply: 'Hello there.' },
      ],
      default: 'No idea.',
    });
    const stub = await startTestStub({ mode: { kind: 'canned', replies: await loadCannedReplies(file) } });
    try {
      const answer = async (utterance: string) => BackendResponse.parse((await postSigned(stub, ask(utterance))).json).content;
      expect(await answer('what about the budget?')).toBe('The budget was approved.');
      expect(await answer('Hello team')).toBe('Hello there.');
      expect(await answer('oh hello')).toBe('No idea.');
      expect(stub.calls.every((call) => call.mode === 'canned')).toBe(true);
    } finally {
      await stub.close();
    }
  });

  it('refuses a malformed file or a bad regular expression at load time, naming the problem', async () => {
    const unknownKey = await cannedFile('bad-key.json', { replies: [{ contains: 'x', reply: 'y', extra: 1 }] });
    await expect(loadCannedReplies(unknownKey)).rejects.toBeInstanceOf(CannedFileError);
    const badRegex = await cannedFile('bad-regex.json', { replies: [{ pattern: '(', reply: 'y' }] });
    await expect(loadCannedReplies(badRegex)).rejects.toThrow(/replies\.0\.pattern/);
    const notJson = await cannedFile('not-json.json', '{');
    await expect(loadCannedReplies(notJson)).rejects.toThrow(/not-json\.json/);
  });
});

describe('tool-demo mode', () => {
  it('asks for searchMemory first, then reads out the top results of the tool message', async () => {
    const stub = await startTestStub({ mode: { kind: 'tool-demo' } });
    try {
      const first = ask('launch date');
      const round1 = BackendResponse.parse((await postSigned(stub, first)).json);
      expect(round1.finish_reason).toBe('tool_calls');
      expect(round1.tool_calls).toHaveLength(1);
      const call = round1.tool_calls![0]!;
      expect(call).toMatchObject({ name: 'searchMemory', arguments: { query: 'launch date' } });
      expect(stub.calls.at(-1)?.verdict).toBe('tool_calls');

      const results = {
        results: [
          { type: 'decision', text: 'Launch on June 3.' },
          { type: 'open_question', text: 'Who announces it?' },
          { type: 'action_item', text: 'Draft the post.' },
          { type: 'statement', text: 'Not read out: only three are.' },
        ],
        next_cursor: null,
      };
      const second = backendRequest({
        messages: [
          ...first.messages,
          { role: 'assistant', content: round1.content, tool_calls: round1.tool_calls },
          { role: 'tool', tool_call_id: call.id, content: JSON.stringify(results) },
        ],
        metadata: { ...first.metadata, round: 2 },
      });
      const round2 = BackendResponse.parse((await postSigned(stub, second)).json);
      expect(round2).toMatchObject({
        finish_reason: 'stop',
        tool_calls: null,
        content: 'From memory: decision: Launch on June 3.; open question: Who announces it?; action item: Draft the post.',
      });
    } finally {
      await stub.close();
    }
  });

  it('says so when the search found nothing, or when the service declared no tool', async () => {
    const stub = await startTestStub({ mode: { kind: 'tool-demo' } });
    try {
      const empty = ask('anything', {
        messages: [
          { role: 'user', content: 'anything' },
          { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'searchMemory', arguments: { query: 'anything' } }] },
          { role: 'tool', tool_call_id: 'c1', content: '{"results":[],"next_cursor":null}' },
        ],
      });
      expect(BackendResponse.parse((await postSigned(stub, empty)).json).content).toBe('I found nothing in memory about that.');
      const noTools = ask('anything', { tools: [] });
      const answer = BackendResponse.parse((await postSigned(stub, noTools)).json);
      expect(answer).toMatchObject({ finish_reason: 'stop', tool_calls: null });
      expect(answer.content).toMatch(/no searchMemory tool/);
    } finally {
      await stub.close();
    }
  });
});

interface Upstream {
  url: string;
  bodies: Record<string, unknown>[];
  headers: IncomingMessage['headers'][];
  close(): Promise<void>;
}

/** A tiny OpenAI-compatible chat-completions server: asks for the tool once, then answers from the tool message. */
async function startUpstream(status = 200, delayMs = 0): Promise<Upstream> {
  const bodies: Record<string, unknown>[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { role: string; content: string }[] };
    bodies.push(body);
    headers.push(req.headers);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (status !== 200 || req.url !== '/v1/chat/completions') {
      res.writeHead(status === 200 ? 404 : status, { 'content-type': 'application/json' }).end('{"error":"nope"}');
      return;
    }
    const toolMessage = body.messages.find((message) => message.role === 'tool');
    const message = toolMessage
      ? { role: 'assistant', content: `Found: ${toolMessage.content}` }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_up_1', type: 'function', function: { name: 'searchMemory', arguments: '{"query":"pricing"}' } }],
        };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'cmpl', choices: [{ index: 0, message, finish_reason: toolMessage ? 'stop' : 'tool_calls' }], usage: { total_tokens: 42 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies,
    headers,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('forward mode', () => {
  it('maps the request to chat completions, and tool calls and usage back, in both rounds', async () => {
    const upstream = await startUpstream();
    const stub = await startTestStub({ mode: { kind: 'forward', target: { url: upstream.url, model: 'tiny-model', apiKey: 'sk-test' } } });
    try {
      const first = ask('What about pricing?');
      const round1 = BackendResponse.parse((await postSigned(stub, first)).json);
      expect(round1).toMatchObject({
        content: '',
        finish_reason: 'tool_calls',
        tool_calls: [{ id: 'call_up_1', name: 'searchMemory', arguments: { query: 'pricing' } }],
        metadata: { tokens_used: 42 },
      });
      expect(upstream.headers[0]?.authorization).toBe('Bearer sk-test');
      expect(upstream.bodies[0]).toEqual({
        model: 'tiny-model',
        messages: [
          { role: 'system', content: 'You are Ada, a teammate.' },
          { role: 'user', content: 'What about pricing?' },
        ],
        tools: [
          {
            type: 'function',
            function: { name: 'searchMemory', description: SEARCH_MEMORY_TOOL.description, parameters: SEARCH_MEMORY_TOOL.parameters_schema },
          },
        ],
      });

      const second = backendRequest({
        messages: [
          ...first.messages,
          { role: 'assistant', content: '', tool_calls: round1.tool_calls },
          { role: 'tool', tool_call_id: 'call_up_1', content: '{"results":[]}' },
        ],
        metadata: { ...first.metadata, round: 2 },
      });
      const round2 = BackendResponse.parse((await postSigned(stub, second)).json);
      expect(round2).toMatchObject({ content: 'Found: {"results":[]}', finish_reason: 'stop', tool_calls: null });
      expect((upstream.bodies[1] as { messages: unknown[] }).messages.slice(2)).toEqual([
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_up_1', type: 'function', function: { name: 'searchMemory', arguments: '{"query":"pricing"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_up_1', content: '{"results":[]}' },
      ]);
    } finally {
      await stub.close();
      await upstream.close();
    }
  });

  it('answers 502 when the model fails, and says so in the log', async () => {
    const upstream = await startUpstream(500);
    const stub = await startTestStub({ mode: { kind: 'forward', target: { url: `${upstream.url}/chat/completions`, model: 'm' } } });
    try {
      const { status } = await postSigned(stub, ask('hello'));
      expect(status).toBe(502);
      expect(stub.calls.at(-1)).toMatchObject({ verdict: 'upstream-error', status: 502 });
      expect(stub.calls.at(-1)?.detail).toMatch(/500/);
      expect(upstream.headers[0]?.authorization).toBeUndefined();
    } finally {
      await stub.close();
      await upstream.close();
    }
  });

  it('answers 504 within the budget when the model is slower than timeout_ms', async () => {
    const upstream = await startUpstream(200, 5000);
    const stub = await startTestStub({ mode: { kind: 'forward', target: { url: upstream.url, model: 'm' } } });
    try {
      const started = Date.now();
      const { status } = await postSigned(stub, backendRequest({ metadata: { timeout_ms: 1000 } }));
      expect(status).toBe(504);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await stub.close();
      await upstream.close();
    }
  });

  it('builds the chat-completions URL from a base or takes a full one', () => {
    expect(chatCompletionsUrl('https://api.example.com/v1/')).toBe('https://api.example.com/v1/chat/completions');
    expect(chatCompletionsUrl('https://api.example.com/v1/chat/completions')).toBe('https://api.example.com/v1/chat/completions');
  });
});
