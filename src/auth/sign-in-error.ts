/**
 * What kind of failure a sign-in is: `auth` (refused or missing credentials, no usable secret storage), `network`
 * (the issuer could not be reached or not trusted) or `usage` (a flag or file that cannot work). The CLI turns these
 * into exit codes 4, 1 and 2.
 */
export type SignInFailureKind = 'auth' | 'network' | 'usage';

/** A sign-in failure the user can act on: one sentence, and the next step in `hint`. */
export class SignInError extends Error {
  readonly kind: SignInFailureKind;
  readonly hint?: string;

  constructor(kind: SignInFailureKind, message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SignInError';
    this.kind = kind;
    this.hint = hint;
  }
}
