import type { Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { toolCallAnswerer, type McpSurfaceOptions, type OperationInvoker } from '../contract/mcp-surface.js';

type RequestId = string | number;

/** The request id a `notifications/cancelled` names, if the message is one. */
function cancelledId(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled' || 'id' in message) return undefined;
  const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}

/**
 * Answers plain tool calls on a connected stdio transport without the SDK's protocol layer (see toolCallAnswerer):
 * they are nearly all this server does, and the layer costs a good part of each call. Every other message goes to
 * the SDK as before. As the SDK does, a call the client cancels (`notifications/cancelled`) is aborted and gets no
 * answer.
 */
export function answerToolCallsDirectly(
  transport: Transport,
  output: Writable,
  invoker: OperationInvoker,
  options: McpSurfaceOptions,
): void {
  const viaSdk = transport.onmessage;
  if (viaSdk === undefined) throw new Error('connect the server to the transport first');
  const answerToolCall = toolCallAnswerer(options);
  const inFlight = new Map<RequestId, AbortController>();
  transport.onmessage = (message, extra) => {
    const cancelled = cancelledId(message);
    if (cancelled !== undefined) inFlight.get(cancelled)?.abort();
    const controller = new AbortController();
    const answer = answerToolCall(message, (name, args) => invoker.call(name, args, { signal: controller.signal }));
    if (answer === undefined) {
      viaSdk(message, extra);
      return;
    }
    // A plain tool call is a request, so it has an id.
    const id = (message as { id: RequestId }).id;
    inFlight.set(id, controller);
    void answer
      .then((text) => {
        if (!controller.signal.aborted) output.write(`${text}\n`);
      })
      .finally(() => {
        if (inFlight.get(id) === controller) inFlight.delete(id);
      });
  };
}
