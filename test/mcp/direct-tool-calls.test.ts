import { PassThrough } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { describe, expect, it } from 'vitest';
import type { InvocationOutcome, OperationInvoker } from '../../src/contract/mcp-surface.js';
import { answerToolCallsDirectly } from '../../src/mcp/direct-tool-calls.js';

const page = { items: [], next_cursor: null };

function harness(invoker: OperationInvoker = { call: async () => ({ ok: true, status: 200, body: page }) }) {
  const input = new PassThrough();
  const output = new PassThrough();
  const direct = answerToolCallsDirectly(input, output, invoker, {});
  const forSdk: Buffer[] = [];
  direct.forSdk.on('data', (chunk: Buffer) => forSdk.push(chunk));
  const answers: string[] = [];
  output.on('data', (chunk: Buffer) => answers.push(...chunk.toString().split('\n').filter(Boolean)));
  return { input, direct, answers, sdkText: () => Buffer.concat(forSdk).toString() };
}

const call = (id: number, name = 'listDecisions') =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { deployment_id: 'd1' } } });

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('answerToolCallsDirectly', () => {
  it('answers plain tool calls and passes every other line to the SDK unchanged and in order, however the input is cut', async () => {
    const { input, answers, sdkText } = harness();
    const forSdk = [
      JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }),
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\r',
      'not json at all',
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'listDecisions', arguments: {}, _meta: {} } }),
    ];
    const text = [call(1), forSdk[0], forSdk[1], call(2), forSdk[2], forSdk[3], call(3)].map((line) => `${line}\n`).join('');
    for (let at = 0; at < text.length; at += 7) input.write(Buffer.from(text.slice(at, at + 7)));
    await settle();
    expect(sdkText()).toBe(forSdk.map((line) => `${line}\n`).join(''));
    expect(answers.map((answer) => JSON.parse(answer).id).sort()).toEqual([1, 2, 3]);
    expect(JSON.parse(answers[0]!).result.structuredContent).toEqual(page);
  });

  it('aborts a call the client cancels and writes no answer for it; the SDK hears of the cancellation too', async () => {
    const signals: AbortSignal[] = [];
    const never: OperationInvoker = {
      call: (_name, _args, context) => {
        signals.push(context.signal);
        return new Promise<InvocationOutcome>((resolve) =>
          context.signal.addEventListener('abort', () => resolve({ ok: true, status: 200, body: page })),
        );
      },
    };
    const { input, answers, sdkText } = harness(never);
    const cancel = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } });
    input.write(`${call(4)}\n${cancel}\n`);
    await settle();
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
    expect(answers).toEqual([]);
    expect(sdkText()).toBe(`${cancel}\n`);
  });

  it('hands a line longer than the SDK accepts to the SDK, which refuses it as before', async () => {
    const { input, sdkText } = harness();
    const huge = Buffer.alloc(STDIO_DEFAULT_MAX_BUFFER_SIZE + 1, 0x20);
    input.write(huge);
    await settle();
    expect(sdkText().length).toBe(huge.length);
  });

  it('ends the SDK stream when the input ends', async () => {
    const { input, direct } = harness();
    const ended = new Promise((resolve) => direct.forSdk.once('end', resolve));
    input.end();
    await expect(ended).resolves.toBeUndefined();
  });

  it('stops reading the input once detached', async () => {
    const { input, direct, answers } = harness();
    direct.detach();
    input.write(`${call(5)}\n`);
    await settle();
    expect(answers).toEqual([]);
    expect(input.isPaused()).toBe(true);
  });
});
