import {
  PROBLEM_TYPES,
  problemTypeUri,
  type InvalidParam,
  type ProblemDocument,
  type ProblemSlug,
} from '../../contract/index.js';

/**
 * The one error the core throws for anything a caller is told: it carries the problem kind (and so the status),
 * a detail sentence, and for 400 the refused parameters. Anything else thrown is a bug and answers 500.
 */
export class HttpProblem extends Error {
  readonly slug: ProblemSlug;
  readonly status: number;
  readonly invalidParams?: InvalidParam[];
  readonly headers: Record<string, string>;

  constructor(
    slug: ProblemSlug,
    detail?: string,
    options: { invalidParams?: InvalidParam[]; headers?: Record<string, string> } = {},
  ) {
    super(detail ?? PROBLEM_TYPES[slug].title);
    this.name = 'HttpProblem';
    this.slug = slug;
    this.status = PROBLEM_TYPES[slug].status;
    this.invalidParams = options.invalidParams;
    this.headers = options.headers ?? {};
  }

  /** The RFC 9457 document for this problem, as answered to `instance` (when known) under `requestId`. */
  toDocument(instance: string | undefined, requestId: string): ProblemDocument {
    return {
      type: problemTypeUri(this.slug),
      title: PROBLEM_TYPES[this.slug].title,
      status: this.status,
      detail: this.message,
      ...(instance === undefined ? {} : { instance }),
      request_id: requestId,
      ...(this.invalidParams ? { invalid_params: this.invalidParams } : {}),
    };
  }
}

/** A 400 naming the refused parameters. */
export function invalidRequest(invalidParams: InvalidParam[], detail = 'The request has invalid parameters.'): HttpProblem {
  return new HttpProblem('invalid-request', detail, { invalidParams });
}

/**
 * The one 403 for a missing deployment, a missing grant and a read-only grant on an action: the same detail for
 * all three, so the body never tells a caller what a tenant has.
 */
export function forbidden(): HttpProblem {
  return new HttpProblem('forbidden', 'You have no grant that allows this call on this deployment.');
}

/** 401 with the header RFC 6750 asks for. */
export function unauthorized(detail: string): HttpProblem {
  return new HttpProblem('unauthorized', detail, {
    headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
  });
}
