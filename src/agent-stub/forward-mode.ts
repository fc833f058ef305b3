import { request as httpRequest } from 'undici';
import { z } from 'zod';
import { DEFAULT_RESPONSE_CAP_BYTES, type BackendMessage, type BackendRequest, type ToolCall } from '../contract/index.js';
import { readCapped } from './read-capped.js';
import { UpstreamError, type Reply, type Responder } from './responder.js';

/** An OpenAI-compatible chat-completions endpoint and the model to ask. */
export interface ForwardTarget {
  /** The API base (`https://api.openai.com/v1`) or the full `.../chat/completions` URL. */
  url: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when present. */
  apiKey?: string;
}

const OpenAiToolCall = z.object({
  id: z.string(),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const OpenAiResponse = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullable().optional(),
          tool_calls: z.array(OpenAiToolCall).nullable().optional(),
        }),
      }),
    )
    .min(1),
  usage: z.object({ total_tokens: z.number().int() }).optional(),
});

/** The chat-completions URL of a target: the path is appended unless it is already there. */
export function chatCompletionsUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

/** Maps a contract request to an OpenAI chat-completions body: system prompt first, tools as functions. */
export function toChatCompletionsBody(request: BackendRequest, model: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    messages: [{ role: 'system', content: request.system }, ...request.messages.map(toOpenAiMessage)],
  };
  // Some compatible servers reject an empty `tools` array, so it is left out when the service declared none.
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters_schema },
    }));
  }
  return body;
}

function toOpenAiMessage(message: BackendMessage): Record<string, unknown> {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
  if (message.role === 'user' || !message.tool_calls?.length) return { role: message.role, content: message.content };
  return {
    role: 'assistant',
    content: message.content,
    tool_calls: message.tool_calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    })),
  };
}

/** Maps an OpenAI chat-completions answer back to a reply of the contract; malformed answers are upstream errors. */
export function fromChatCompletionsBody(json: unknown): Reply {
  const parsed = OpenAiResponse.safeParse(json);
  if (!parsed.success) throw new UpstreamError('the model answered in an unexpected shape (no choices[0].message)');
  const message = parsed.data.choices[0]!.message;
  const toolCalls = message.tool_calls?.map(fromOpenAiToolCall);
  return {
    content: message.content ?? '',
    tool_calls: toolCalls?.length ? toolCalls : null,
    tokens_used: parsed.data.usage?.total_tokens,
  };
}

function fromOpenAiToolCall(call: z.infer<typeof OpenAiToolCall>): ToolCall {
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments);
  } catch {
    args = undefined;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new UpstreamError(`the model called ${call.function.name} with arguments that are not a JSON object`);
  }
  return { id: call.id, name: call.function.name, arguments: args as Record<string, unknown> };
}

/** Forwards each request to the target model and maps its answer, tool calls included, back to the contract. */
export function forwardResponder(target: ForwardTarget): Responder {
  const url = chatCompletionsUrl(target.url);
  return async (request, signal) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
    let status: number;
    let raw: Buffer | undefined;
    try {
      const response = await httpRequest(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(toChatCompletionsBody(request, target.model)),
        signal,
      });
      status = response.statusCode;
      raw = await readCapped(response.body, DEFAULT_RESPONSE_CAP_BYTES);
    } catch (error) {
      throw new UpstreamError(`the model at ${url} did not answer (${(error as Error).message})`);
    }
    if (raw === undefined) throw new UpstreamError('the model answered with more than 1 MB');
    if (status < 200 || status >= 300) {
      throw new UpstreamError(`the model answered ${status}: ${raw.toString('utf8').slice(0, 200)}`);
    }
    return fromChatCompletionsBody(parseJson(raw));
  };
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new UpstreamError('the model answered with a body that is not JSON');
  }
}
