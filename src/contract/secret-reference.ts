import { readFile } from 'node:fs/promises';

/** The forms a secret reference takes (v1-completions, agent backend): never the secret itself. */
export const REFERENCE_FORMS = 'env:NAME, file:/path or keychain:service/account';

/** A secret reference that is malformed or cannot be resolved; the message says which and why. */
export class SecretReferenceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretReferenceError';
  }
}

/**
 * Resolves a secret reference (`env:NAME`, `file:/path`, `keychain:service/account`) to the secret itself.
 * A trailing line break of a file is dropped, because `echo secret > file` writes one and a signature over it
 * would never match. An empty secret is refused: HMAC with an empty key authenticates nothing.
 */
export async function resolveSecretReference(reference: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const colon = reference.indexOf(':');
  const scheme = colon < 0 ? '' : reference.slice(0, colon);
  const target = reference.slice(colon + 1);
  const secret = await resolveByScheme(scheme, target, env);
  if (secret.length === 0) throw new SecretReferenceError(`the secret behind ${reference} is empty`);
  return secret;
}

/**
 * Checks that a string is a secret reference (its form only, nothing is read), so a raw secret can be refused
 * where a reference is registered. Returns a sentence saying what is wrong, or null when it is well-formed.
 */
export function secretReferenceProblem(reference: string): string | null {
  const match = /^(env|file|keychain):(.+)$/.exec(reference);
  if (!match) return `must be a secret reference (${REFERENCE_FORMS}), never the secret itself`;
  const [, scheme, target] = match;
  if (scheme === 'env' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(target!)) return `env:${target} is not a valid environment variable name`;
  if (scheme === 'file' && !target!.startsWith('/')) return 'file: needs an absolute path, e.g. file:/run/secrets/agent';
  if (scheme === 'keychain' && !/^[^/]+\/.+$/.test(target!)) return 'keychain: needs a service and an account: keychain:service/account';
  return null;
}

async function resolveByScheme(scheme: string, target: string, env: NodeJS.ProcessEnv): Promise<string> {
  switch (scheme) {
    case 'env':
      return fromEnv(target, env);
    case 'file':
      return fromFile(target);
    case 'keychain':
      return fromKeychain(target);
    default:
      throw new SecretReferenceError(`a secret reference must be ${REFERENCE_FORMS}; a raw secret is not accepted`);
  }
}

function fromEnv(name: string, env: NodeJS.ProcessEnv): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new SecretReferenceError(`env:${name} is not a valid environment variable name`);
  }
  const value = env[name];
  if (value === undefined) throw new SecretReferenceError(`environment variable ${name} is not set`);
  return value;
}

async function fromFile(path: string): Promise<string> {
  if (path.length === 0) throw new SecretReferenceError('file: needs a path, e.g. file:/run/secrets/agent');
  try {
    return (await readFile(path, 'utf8')).replace(/\r?\n$/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new SecretReferenceError(`cannot read secret file ${path} (${code})`);
  }
}

async function fromKeychain(target: string): Promise<string> {
  const slash = target.indexOf('/');
  const service = target.slice(0, slash);
  const account = target.slice(slash + 1);
  if (slash <= 0 || account.length === 0) {
    throw new SecretReferenceError(`keychain:${target} must name a service and an account: keychain:service/account`);
  }
  let password: string | null;
  try {
    // Loaded only here: a native module that most runs never need.
    const keytar = await import('@napi-rs/keyring/keytar.js');
    password = await keytar.getPassword(service, account);
  } catch (error) {
    throw new SecretReferenceError(`the system keychain is unavailable (${(error as Error).message}); use env: or file: instead`);
  }
  if (password === null) throw new SecretReferenceError(`no keychain entry for service "${service}", account "${account}"`);
  return password;
}
