import { z } from 'zod';
import { TIMEOUT_BOUNDS_MS } from './agent-backend.js';
import { DeploymentId, LIMITS } from './params.js';
import { Timestamp } from './records.js';

/**
 * Why the service spoke the fallback line instead of the backend's answer. Stable codes for logs and scripts;
 * the accompanying detail is for people and may change wording.
 */
export const BACKEND_FAILURE_CODES = [
  'no-backend',
  'secret-unresolvable',
  'url-refused',
  'address-refused',
  'timeout',
  'tls',
  'connection',
  'redirect-refused',
  'http-status',
  'body-too-large',
  'invalid-json',
  'invalid-response',
  'empty-content',
  'unknown-tool',
  'invalid-tool-arguments',
  'too-many-tool-calls',
  'too-many-tool-rounds',
  'tool-failed',
  'request-too-large',
  'service-error',
] as const;
export type BackendFailureCode = (typeof BACKEND_FAILURE_CODES)[number];

export const BackendFailure = z.object({
  code: z.enum(BACKEND_FAILURE_CODES),
  detail: z.string(),
});
export type BackendFailure = z.infer<typeof BackendFailure>;

/** One request of an invocation to the backend and what came of it. Never the secret or the signature. */
export const RoundTrace = z.object({
  round: z.number().int().min(1),
  sent_at: Timestamp,
  request_bytes: z.number().int(),
  messages: z.number().int().describe('Messages in the conversation sent this round'),
  status: z.number().int().nullable().describe('HTTP status; null when no answer arrived'),
  latency_ms: z.number().int(),
  response_bytes: z.number().int().nullable(),
  tool_calls: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      query: z.string().nullable(),
      results: z.number().int().nullable().describe('Memory records returned to the backend; null when the call was refused'),
    }),
  ),
  verdict: z.enum(['answered', 'tool_calls', 'failed']),
  failure: BackendFailure.nullable(),
});
export type RoundTrace = z.infer<typeof RoundTrace>;

/** What the teammate of a deployment said to an utterance, and how the exchange with its backend went. */
export const AgentInvocation = z.object({
  type: z.literal('agent_invocation'),
  invocation_id: z.string(),
  deployment_id: z.string(),
  meeting_id: z.string(),
  backend_url: z.string().nullable().describe('Null when no backend is registered'),
  timeout_ms: z.number().int().min(TIMEOUT_BOUNDS_MS.min).max(TIMEOUT_BOUNDS_MS.max).nullable(),
  spoken: z.string().describe("What the teammate says: the backend's content, or the fallback line"),
  fallback: z.boolean(),
  failure: BackendFailure.nullable(),
  elapsed_ms: z.number().int(),
  rounds: z.array(RoundTrace),
});
export type AgentInvocation = z.infer<typeof AgentInvocation>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const AskTeammateInput = z.strictObject({
  deployment_id: DeploymentId,
  utterance: z
    .string()
    .trim()
    .min(1, 'utterance must not be empty')
    .max(LIMITS.text, `utterance must be at most ${LIMITS.text} characters`)
    .describe('What a participant says to the teammate'),
  meeting_id: z
    .string()
    .toLowerCase()
    .regex(UUID, 'must be a meeting id (a UUID)')
    .optional()
    .describe('A meeting of the deployment the utterance is said in (default: a new ad-hoc meeting id)'),
});
export type AskTeammateInput = z.infer<typeof AskTeammateInput>;
