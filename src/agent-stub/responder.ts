import type { BackendRequest, ToolCall } from '../contract/index.js';

/** What a mode answers; the server adds `finish_reason` and `metadata`. */
export interface Reply {
  content: string;
  tool_calls?: ToolCall[] | null;
  tokens_used?: number;
}

/** Answers one verified request. `signal` aborts when the request's own budget is spent. */
export type Responder = (request: BackendRequest, signal: AbortSignal) => Promise<Reply>;

/** A failure of the model behind the stub (forward mode), answered as 502 rather than reported as a stub bug. */
export class UpstreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** The most recent thing a person said, which every mode but forward answers to. */
export function lastUserMessage(request: BackendRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i -= 1) {
    const message = request.messages[i];
    if (message?.role === 'user') return message.content;
  }
  return '';
}
