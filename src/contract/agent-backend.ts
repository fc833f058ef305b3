import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { Timestamp } from './records.js';

/** The header that carries the service's signature of the raw request body. */
export const SIGNATURE_HEADER = 'x-service-signature';
export const MAX_TOOL_ROUNDS = 4;
export const DEFAULT_RESPONSE_CAP_BYTES = 1024 * 1024;
export const TIMEOUT_BOUNDS_MS = { min: 1000, max: 30000, default: 15000 } as const;

const Uuid = z.string().uuid();

export const ToolCall = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const BackendMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string(), tool_calls: z.array(ToolCall).nullable().optional() }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);
export type BackendMessage = z.infer<typeof BackendMessage>;

export const BackendTool = z.object({
  name: z.string(),
  description: z.string(),
  parameters_schema: z.object({
    type: z.literal('object'),
    properties: z.record(z.string(), z.unknown()),
    required: z.array(z.string()),
  }),
});

/** The one tool the service declares: a semantic cross-meeting memory query. */
export const SEARCH_MEMORY_TOOL: z.infer<typeof BackendTool> = {
  name: 'searchMemory',
  description: 'Search the cross-meeting memory of this teammate: decisions, open questions, action items, statements, topics.',
  parameters_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

export const BackendRequest = z.object({
  system: z.string(),
  messages: z.array(BackendMessage).min(1),
  tools: z.array(BackendTool),
  metadata: z.object({
    deployment_id: Uuid,
    invocation_id: Uuid,
    meeting_id: Uuid,
    timeout_ms: z.number().int().min(TIMEOUT_BOUNDS_MS.min).max(TIMEOUT_BOUNDS_MS.max),
    sent_at: Timestamp,
    round: z.number().int().min(1).max(MAX_TOOL_ROUNDS + 1),
  }),
});
export type BackendRequest = z.infer<typeof BackendRequest>;

export const BackendResponse = z.object({
  content: z.string(),
  tool_calls: z.array(ToolCall).nullable().optional(),
  finish_reason: z.enum(['stop', 'tool_calls']).optional(),
  metadata: z
    .object({ latency_ms: z.number().int().optional(), tokens_used: z.number().int().optional() })
    .optional(),
});
export type BackendResponse = z.infer<typeof BackendResponse>;

/** `sha256=<lowercase hex of HMAC-SHA256(secret, raw body bytes)>`. */
export function signBody(secret: string | Buffer, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** Checks a signature header against the raw body with a timing-safe compare. */
export function verifySignature(secret: string | Buffer, rawBody: string | Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(secret, rawBody));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
