import type { z } from 'zod';
import { BackendRequest, verifySignature } from '../contract/index.js';
import type { ReplayCache } from './replay-cache.js';

/** Why a request was refused: the HTTP status, a stable slug for logs and clients, and a readable detail. */
export interface Refusal {
  status: number;
  slug: string;
  detail: string;
}

export type GuardResult = { ok: true; request: BackendRequest } | ({ ok: false; ids?: RequestIds } & Refusal);

/** The correlation fields of a request, for logging refusals that got far enough to know them. */
export interface RequestIds {
  invocation_id: string;
  round: number;
}

export interface GuardContext {
  secret: string;
  maxAgeMs: number;
  replay: ReplayCache;
  nowMs: number;
}

/**
 * Decides whether a raw request body may be answered. The signature is checked before anything is parsed, so an
 * unauthenticated caller learns nothing about what the stub accepts; the replay cache is only written for
 * authentic, fresh requests, so strangers cannot fill it.
 */
export function guardRequest(rawBody: Buffer, signature: string | undefined, ctx: GuardContext): GuardResult {
  if (!verifySignature(ctx.secret, rawBody, signature)) {
    return refuse(401, 'bad-signature', signature ? 'x-service-signature does not match the body' : 'x-service-signature is missing');
  }
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return refuse(400, 'invalid-json', 'the body is not JSON');
  }
  const parsed = BackendRequest.safeParse(json);
  if (!parsed.success) return refuse(400, 'invalid-request', describeIssues(parsed.error.issues));
  const request = parsed.data;
  const ids = { invocation_id: request.metadata.invocation_id, round: request.metadata.round };
  const sentAtMs = Date.parse(request.metadata.sent_at);
  const skewMs = ctx.nowMs - sentAtMs;
  if (Math.abs(skewMs) > ctx.maxAgeMs) {
    const how = skewMs > 0 ? `${Math.round(skewMs / 1000)} s old` : `${Math.round(-skewMs / 1000)} s in the future`;
    return { ...refuse(401, 'stale-request', `metadata.sent_at is ${how}; at most ${ctx.maxAgeMs / 1000} s either way is accepted`), ids };
  }
  // A request stays acceptable until sent_at + max-age, so its replay entry must live exactly that long.
  const verdict = ctx.replay.remember(`${ids.invocation_id}:${ids.round}`, sentAtMs + ctx.maxAgeMs + 1000, ctx.nowMs);
  if (verdict === 'replayed') {
    return { ...refuse(409, 'replayed-request', `invocation ${ids.invocation_id} round ${ids.round} was already answered`), ids };
  }
  if (verdict === 'full') {
    return { ...refuse(503, 'replay-cache-full', 'too many requests inside the freshness window; try again shortly'), ids };
  }
  return { ok: true, request };
}

function refuse(status: number, slug: string, detail: string): { ok: false } & Refusal {
  return { ok: false, status, slug, detail };
}

function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
}
