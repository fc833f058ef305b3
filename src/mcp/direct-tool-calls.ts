import { PassThrough, type Readable, type Writable } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { toolCallAnswerer, type McpSurfaceOptions, type OperationInvoker } from '../contract/mcp-surface.js';

type RequestId = string | number;

const NEWLINE = 0x0a;

/** The request id a `notifications/cancelled` names, if the message is one. */
function cancelledId(message: unknown): RequestId | undefined {
  const { method, id, params } = (message ?? {}) as { method?: unknown; id?: unknown; params?: { requestId?: unknown } };
  if (method !== 'notifications/cancelled' || id !== undefined) return undefined;
  const requestId = params?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}

function parsedJson(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The client's messages as the SDK's stdio transport should read them, and how to stop reading. */
export interface DirectToolCalls {
  /** Every line of the input that is not a plain tool call, unchanged and in order. */
  forSdk: Readable;
  /** Stops reading the input (and lets it pause), e.g. once the server has closed. */
  detach(): void;
}

/**
 * Reads the client's messages off `input` ahead of the SDK and answers plain tool calls itself (see
 * toolCallAnswerer): they are nearly all this server does, and the SDK's path costs a good part of each one (every
 * message is validated against the JSON-RPC schemas before the protocol layer sees it). Every other line, malformed
 * ones included, goes on unchanged to `forSdk`, for the SDK to answer as it always does. As the SDK does, a call the
 * client cancels (`notifications/cancelled`) is aborted and gets no answer.
 */
export function answerToolCallsDirectly(
  input: Readable,
  output: Writable,
  invoker: OperationInvoker,
  options: McpSurfaceOptions,
): DirectToolCalls {
  const forSdk = new PassThrough();
  const answerToolCall = toolCallAnswerer(options);
  const inFlight = new Map<RequestId, AbortController>();

  function answerDirectly(line: Buffer): boolean {
    const message = parsedJson(line);
    const cancelled = cancelledId(message);
    if (cancelled !== undefined) inFlight.get(cancelled)?.abort();
    const controller = new AbortController();
    const answer = answerToolCall(message, (name, args) => invoker.call(name, args, { signal: controller.signal }));
    if (answer === undefined) return false;
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
    return true;
  }

  let pending: Buffer | undefined;
  const onData = (chunk: Buffer) => {
    const data = pending ? Buffer.concat([pending, chunk]) : chunk;
    let start = 0;
    for (let end = data.indexOf(NEWLINE); end !== -1; end = data.indexOf(NEWLINE, start)) {
      if (!answerDirectly(data.subarray(start, end))) forSdk.write(data.subarray(start, end + 1));
      start = end + 1;
    }
    pending = start < data.length ? data.subarray(start) : undefined;
    // A line longer than the SDK accepts goes to the SDK as it is, so that it refuses it as it would have.
    if (pending && pending.length > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
      forSdk.write(pending);
      pending = undefined;
    }
  };
  const onEnd = () => forSdk.end();
  const onError = (error: Error) => forSdk.destroy(error);
  input.on('data', onData);
  input.once('end', onEnd);
  input.on('error', onError);
  return {
    forSdk,
    detach() {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onError);
      if (input.listenerCount('data') === 0) input.pause();
    },
  };
}
