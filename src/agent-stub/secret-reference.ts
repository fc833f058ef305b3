import { REFERENCE_FORMS, SecretReferenceError, resolveSecretReference } from '../contract/secret-reference.js';

/** The environment variable that holds the shared secret when no `--secret` reference is given. */
export const SECRET_ENV_VAR = 'MEMORY_AGENT_SECRET';

/**
 * The secret for a command: from the reference when one is given, else from MEMORY_AGENT_SECRET. Neither is an
 * error that says how to give one.
 */
export async function resolveSecretOption(reference: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (reference !== undefined) return resolveSecretReference(reference, env);
  const fromEnv = env[SECRET_ENV_VAR];
  if (fromEnv) return fromEnv;
  throw new SecretReferenceError(`no shared secret: pass --secret <${REFERENCE_FORMS}> or set ${SECRET_ENV_VAR}`);
}
