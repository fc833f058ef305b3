/** Exit codes of the `memory` command. */
export const EXIT = { ok: 0, error: 1, usage: 2, auth: 4 } as const;

/**
 * An error the user can do something about: a sentence saying what went wrong and, where there is one, the next
 * step. Anything else that reaches the top is reported as a bug.
 */
export class CliError extends Error {
  readonly exitCode: number;
  readonly hint?: string;

  constructor(message: string, options: { exitCode?: number; hint?: string } = {}) {
    super(message);
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? EXIT.error;
    this.hint = options.hint;
  }
}

/** Wrong flags or arguments: exit code 2. */
export function usageError(message: string, hint?: string): CliError {
  return new CliError(message, { exitCode: EXIT.usage, hint });
}

/** Not signed in, or the credentials were refused: exit code 4. */
export function authError(message: string, hint = 'run `memory login`'): CliError {
  return new CliError(message, { exitCode: EXIT.auth, hint });
}
