import { readFile } from 'node:fs/promises';
import type { CertificateFiles } from './certificate.js';
import { InsecureFileError, openCredentialStore, memoryStore, type CredentialStore, type StorageKind } from './credential-store.js';
import { KeychainUnavailableError } from './keychain.js';
import type { CachePersistence, MsalSignIn } from './msal-sign-in.js';
import { SignInError } from './sign-in-error.js';
import { RENEWAL_MARGIN_SECONDS, tenantOfAuthority, usableCachedToken, type CachedToken } from './token-cache.js';

/** A signed-in profile as the token source needs it: no secrets, only where to find them. */
export interface ProfileSignIn {
  profile: string;
  authority: string;
  clientId: string;
  scope: string;
  caFile?: string;
  credential: { kind: 'secret' } | ({ kind: 'certificate' } & CertificateFiles);
  storage: StorageKind;
  /** The `--insecure-storage` file, used when `storage` is `file`. */
  credentialsFile: string;
}

/** The environment variable that supplies a client secret instead of the keychain. */
export const CLIENT_SECRET_ENV = 'MEMORY_CLIENT_SECRET';

/** The client secret from `MEMORY_CLIENT_SECRET`, when set. */
export function environmentSecret(env: NodeJS.ProcessEnv): string | undefined {
  const value = env[CLIENT_SECRET_ENV]?.trim();
  return value ? value : undefined;
}

/** Reads the CA file of a self-hosted issuer, as a usage error naming the file when it cannot be read. */
export async function readCaFile(caFile: string | undefined): Promise<string | undefined> {
  if (caFile === undefined) return undefined;
  try {
    return await readFile(caFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new SignInError('usage', `Cannot read the CA file ${caFile} (${code}).`, "point --ca-file at the core's ca.pem");
  }
}

/** A storage failure as a sign-in error with the way around it. */
export function storageFailure(error: unknown, profile: string): unknown {
  if (error instanceof KeychainUnavailableError) {
    return new SignInError(
      'auth',
      `Profile "${profile}" keeps its secret in the OS keychain, but there is no usable keychain: ${error.reason}.`,
      `set ${CLIENT_SECRET_ENV} (or MEMORY_TOKEN) in the environment, or run \`memory login --profile ${profile} --insecure-storage\``,
      { cause: error },
    );
  }
  if (error instanceof InsecureFileError) {
    return new SignInError('auth', error.message, `run \`chmod 600 ${error.file}\` if only you could read it, else rotate the secret`, { cause: error });
  }
  return error;
}

/**
 * The profile's store; when the keychain is gone but `MEMORY_CLIENT_SECRET` supplies the secret, tokens are kept for
 * this process only instead of failing.
 */
async function storeFor(signIn: ProfileSignIn, env: NodeJS.ProcessEnv): Promise<CredentialStore> {
  try {
    return await openCredentialStore(signIn.storage, { credentialsFile: signIn.credentialsFile, env });
  } catch (error) {
    if (error instanceof KeychainUnavailableError && environmentSecret(env) !== undefined) return memoryStore();
    throw storageFailure(error, signIn.profile);
  }
}

/** The profile's credential: the certificate's key, `MEMORY_CLIENT_SECRET`, or the stored secret. */
async function credentialFor(signIn: ProfileSignIn, store: CredentialStore, env: NodeJS.ProcessEnv): Promise<MsalSignIn['credential']> {
  if (signIn.credential.kind === 'certificate') {
    const { readCertificateCredential } = await import('./certificate.js');
    return { kind: 'certificate', ...(await readCertificateCredential(signIn.credential)) };
  }
  const secret = environmentSecret(env) ?? (await store.get(signIn.profile, 'client-secret').catch((error: unknown) => {
    throw storageFailure(error, signIn.profile);
  }));
  if (secret === undefined) {
    const where = store.kind === 'none' ? `: it takes the secret from ${CLIENT_SECRET_ENV}, which is not set` : ` in ${store.describe(signIn.profile)}`;
    throw new SignInError(
      'auth',
      `No client secret for profile "${signIn.profile}"${where}.`,
      `set ${CLIENT_SECRET_ENV}, or run \`memory login --profile ${signIn.profile}\` to store one`,
    );
  }
  return { kind: 'secret', secret };
}

/** The store's token cache as MSAL's persistence; storage failures become sign-in errors with the way around them. */
export function cachePersistence(store: CredentialStore, profile: string): CachePersistence {
  const fail = (error: unknown): never => {
    throw storageFailure(error, profile);
  };
  return {
    load: () => store.get(profile, 'token-cache').catch(fail),
    save: (serialized) => store.set(profile, 'token-cache', serialized).catch(fail),
  };
}

function fresh(token: CachedToken | undefined, now = Date.now()): token is CachedToken {
  return token !== undefined && token.expiresOn.getTime() - now > RENEWAL_MARGIN_SECONDS * 1000;
}

/**
 * A token function for a signed-in profile, to hand to the client as `token`: it is called before every request and
 * answers from memory while the token is fresh. Otherwise it reads MSAL's cache from the profile's store and returns
 * the cached token without loading MSAL when MSAL would hand it out unchanged; only when the token is missing or due
 * for renewal does it load `@azure/msal-node` and sign in with the client-credentials flow, which refreshes the
 * cache. Concurrent calls share one renewal. Failures are `SignInError`s.
 */
export function createTokenSource(signIn: ProfileSignIn, env: NodeJS.ProcessEnv = process.env): () => Promise<string> {
  let current: CachedToken | undefined;
  let pending: Promise<string> | undefined;
  let store: Promise<CredentialStore> | undefined;
  const match = { clientId: signIn.clientId, tenantId: tenantOfAuthority(signIn.authority), scope: signIn.scope };

  async function renew(): Promise<string> {
    store ??= storeFor(signIn, env);
    const opened = await store;
    const persistence = cachePersistence(opened, signIn.profile);
    const cached = usableCachedToken(await persistence.load(), match);
    if (cached !== undefined) {
      current = cached;
      return cached.accessToken;
    }
    const [credential, ca] = await Promise.all([credentialFor(signIn, opened, env), readCaFile(signIn.caFile)]);
    const { acquireTokenWithMsal } = await import('./msal-sign-in.js');
    current = await acquireTokenWithMsal({ authority: signIn.authority, clientId: signIn.clientId, scope: signIn.scope, ca, credential }, persistence);
    return current.accessToken;
  }

  return () => {
    if (fresh(current)) return Promise.resolve(current.accessToken);
    pending ??= renew().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}
