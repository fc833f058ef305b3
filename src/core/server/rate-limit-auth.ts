import type { FastifyInstance, FastifyRequest } from 'fastify';
import { findCallRecord } from './call-record.js';
import { HttpProblem } from './problem.js';
import { MemoryRateLimiter, type RateDecision, type RateLimiter } from './rate-limit.js';
import type { Authenticator } from './rest-routes.js';

/** The contract's limit: 600 accepted calls per principal in any 60 seconds, REST and MCP together. */
export const PRINCIPAL_LIMIT = 600;
/** Failed authentications an address may cause per window before it is refused without a token check. */
export const ADDRESS_FAILURE_LIMIT = 60;
export const RATE_WINDOW_MS = 60_000;

export interface RateLimitOptions {
  /** Accepted calls per principal per window; default 600. */
  perPrincipal?: number;
  /** 401 answers per remote address per window; default 60. */
  perAddress?: number;
  windowMs?: number;
  /** The clock, in ms since the epoch; tests move it instead of waiting. */
  now?: () => number;
  /** Shared counters for several replicas; default in-memory ones built from the limits above. */
  principals?: RateLimiter;
  addresses?: RateLimiter;
}

const decisions = new WeakMap<FastifyRequest, RateDecision>();

function rateLimited(decision: RateDecision, detail: string): HttpProblem {
  return new HttpProblem('rate-limited', detail, { headers: { 'retry-after': String(decision.resetSeconds) } });
}

/**
 * Wraps the token check with the rate limits, so REST and MCP (which both authenticate through it) share them.
 * An address that caused too many 401s in the window is refused before its token is even checked, which bounds
 * token guessing; once a caller is known, its principal (tid, oid) takes one slot or gets 429.
 */
export function rateLimitedAuthenticator(authenticate: Authenticator, options: RateLimitOptions = {}): Authenticator {
  const windowMs = options.windowMs ?? RATE_WINDOW_MS;
  const principals = options.principals ?? new MemoryRateLimiter(options.perPrincipal ?? PRINCIPAL_LIMIT, windowMs);
  const addresses = options.addresses ?? new MemoryRateLimiter(options.perAddress ?? ADDRESS_FAILURE_LIMIT, windowMs);
  const now = options.now ?? Date.now;
  const tooManyFailures = 'Too many calls without a usable token from this address.';

  return async (authorization, request) => {
    const addressKey = `address:${request.ip}`;
    const blocked = await addresses.peek(addressKey, now());
    if (!blocked.allowed) throw rateLimited(blocked, tooManyFailures);
    let caller;
    try {
      caller = await authenticate(authorization, request);
    } catch (error) {
      if (!(error instanceof HttpProblem) || error.status !== 401) throw error;
      const failure = await addresses.take(addressKey, now());
      throw failure.allowed ? error : rateLimited(failure, tooManyFailures);
    }
    const decision = await principals.take(`principal:${caller.tenantId}/${caller.oid}`, now());
    decisions.set(request, decision);
    if (!decision.allowed) {
      // The caller is known though refused: its audit entry names the principal, not the address.
      const call = findCallRecord(request);
      if (call) call.caller = caller;
      throw rateLimited(decision, 'Over the rate limit of this principal.');
    }
    return caller;
  };
}

/** `RateLimit-*` on every response whose caller was known, 429s included. */
export function registerRateLimitHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    const decision = decisions.get(request);
    if (!decision) return;
    reply.header('ratelimit-limit', String(decision.limit));
    reply.header('ratelimit-remaining', String(decision.remaining));
    reply.header('ratelimit-reset', String(decision.resetSeconds));
  });
}
