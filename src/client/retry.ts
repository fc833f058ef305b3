import { setTimeout as sleep } from 'node:timers/promises';

/** How the client retries. Writes are never retried after a 503; see `createMemoryClient`. */
export interface RetryOptions {
  /** Total tries of a read answered 503 (1 = no retry). Default 3. */
  readAttempts?: number;
  /** First backoff delay; it doubles per try, with jitter. Default 250 ms. */
  baseDelayMs?: number;
  /** Upper bound of one backoff delay. Default 4000 ms. */
  maxDelayMs?: number;
  /** Extra tries after a 429 (any operation: a refused call was not applied). Default 2. */
  rateLimitRetries?: number;
  /** Longest `Retry-After` the client waits out; a longer one is thrown to the caller. Default 30000 ms. */
  maxRetryAfterMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

/** The retry options with defaults filled in. */
export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  return {
    readAttempts: Math.max(1, options.readAttempts ?? 3),
    baseDelayMs: options.baseDelayMs ?? 250,
    maxDelayMs: options.maxDelayMs ?? 4000,
    rateLimitRetries: Math.max(0, options.rateLimitRetries ?? 2),
    maxRetryAfterMs: options.maxRetryAfterMs ?? 30_000,
  };
}

/** Exponential backoff before try `retry` (1-based), between half and all of the doubled delay. */
export function backoffDelay(policy: RetryPolicy, retry: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/**
 * The `Retry-After` header in seconds: either delta-seconds or an HTTP-date (RFC 9110). Undefined when absent or
 * unreadable.
 */
export function parseRetryAfter(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Waits `ms`, or rejects early when the caller's signal aborts. */
export async function wait(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms > 0) await sleep(ms, undefined, { signal });
}
