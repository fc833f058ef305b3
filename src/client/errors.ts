import type { InvalidParam, ProblemDocument } from '../contract/index.js';

/** Base of every error the memory client throws, so callers can tell them from their own bugs. */
export class MemoryClientError extends Error {
  /** The operation that failed, e.g. `listDecisions`. */
  readonly operation: string;

  constructor(message: string, operation: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MemoryClientError';
    this.operation = operation;
  }
}

/**
 * The core answered with a failure status. `problem` is its RFC 9457 document (synthesised from the status when
 * the body was not one, e.g. from a proxy). Match on `status`, never on the message: wording can change.
 */
export class MemoryApiError extends MemoryClientError {
  readonly status: number;
  readonly problem: ProblemDocument;
  /** Seconds the core asked to wait (`Retry-After`), when it sent one. */
  readonly retryAfterSeconds?: number;

  constructor(operation: string, problem: ProblemDocument, retryAfterSeconds?: number) {
    super(problem.detail ?? problem.title, operation);
    this.name = 'MemoryApiError';
    this.status = problem.status;
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The refused parameters of a 400, empty for other failures. */
  get invalidParams(): InvalidParam[] {
    return this.problem.invalid_params ?? [];
  }

  /** The core's audit-log id of the call, to quote in a report. */
  get requestId(): string | undefined {
    return this.problem.request_id;
  }
}

/**
 * A write answered 503 and reading the record back did not show the change (or could not be done): the change may
 * or may not have been applied. Read the record before repeating the change.
 */
export class MemoryOutcomeUnknownError extends MemoryApiError {
  constructor(operation: string, problem: ProblemDocument, options?: { cause?: unknown }) {
    super(operation, {
      ...problem,
      detail: `The outcome of ${operation} is unknown: the core answered 503 and the change may have been applied.`,
    });
    this.name = 'MemoryOutcomeUnknownError';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * The core could not be reached or its answer could not be read: DNS, refused connection, TLS failure, timeout,
 * a body that is not JSON. `code` is the underlying error code (e.g. `ECONNREFUSED`,
 * `UNABLE_TO_VERIFY_LEAF_SIGNATURE`) when there is one.
 */
export class MemoryConnectionError extends MemoryClientError {
  readonly code?: string;
  readonly url: string;

  constructor(operation: string, url: string, cause: unknown) {
    const code = errorCode(cause);
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Could not reach the memory core at ${url}: ${reason}`, operation, { cause });
    this.name = 'MemoryConnectionError';
    this.url = url;
    this.code = code;
  }
}

function errorCode(error: unknown): string | undefined {
  // undici wraps socket errors; the useful code (ECONNREFUSED, a TLS code) is often on the cause.
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && !code.startsWith('UND_ERR_SOCKET')) return code;
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
