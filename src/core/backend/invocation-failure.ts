import type { BackendFailure, BackendFailureCode } from '../../contract/agent-invocation.js';

/** Ends an invocation with the fallback line; `code` is the logged reason, `detail` says what happened. */
export class InvocationFailure extends Error {
  constructor(
    readonly code: BackendFailureCode,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'InvocationFailure';
  }

  toJSON(): BackendFailure {
    return { code: this.code, detail: this.detail };
  }
}
