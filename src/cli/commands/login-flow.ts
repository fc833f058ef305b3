import { openCredentialStore, type CredentialStore } from '../../auth/credential-store.js';
import { KeychainUnavailableError } from '../../auth/keychain.js';
import { acquireTokenWithMsal, type MsalSignIn } from '../../auth/msal-sign-in.js';
import { CLIENT_SECRET_ENV, readCaFile, storageFailure } from '../../auth/token-source.js';
import { fetchDeployments } from '../../client/index.js';
import type { Deployment } from '../../contract/index.js';
import { signInCliError } from '../connection.js';
import { authError, usageError } from '../errors.js';
import { toCliError } from '../output/api-errors.js';
import { findProfile, insecureCredentialsFile, profileSignIn, saveProfile, type Profile } from '../profiles.js';

/** Where a sign-in keeps its secrets, and why the keychain was passed over when it was. */
export interface ChosenStorage {
  store: CredentialStore;
  /** Set when there is no usable keychain and nothing needed storing: the reason, to tell the user. */
  keychainProblem?: string;
}

/**
 * The store for a new sign-in: the file when `--insecure-storage` asks for it, else the OS keychain. Without a usable
 * keychain a secret that must be kept is an auth error naming both ways around it; a sign-in whose secret comes from
 * the environment or a key file goes on with tokens cached for one command at a time.
 */
export async function chooseStorage(insecure: boolean, keepsSecret: boolean, env: NodeJS.ProcessEnv): Promise<ChosenStorage> {
  const options = { credentialsFile: insecureCredentialsFile(env), env };
  if (insecure) return { store: await openCredentialStore('file', options) };
  try {
    return { store: await openCredentialStore('keychain', options) };
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    if (!keepsSecret) return { store: await openCredentialStore('none', options), keychainProblem: error.reason };
    throw authError(
      `No usable OS keychain to keep the client secret in: ${error.reason}.`,
      `pass --insecure-storage to keep it in an unencrypted 0600 file, or set ${CLIENT_SECRET_ENV} in the environment instead of storing it`,
    );
  }
}

/** One profile about to be signed in. */
export interface SignInPlan {
  name: string;
  profile: Profile;
  credential: MsalSignIn['credential'];
  /** The secret to keep in the store; undefined when it comes from the environment or there is none. */
  secretToKeep?: string;
  store: CredentialStore;
}

/** Runs a storage step, reporting a failing keychain or file as a sign-in error with the way around it. */
async function storing<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw signInCliError(storageFailure(error, name));
  }
}

/** The deployments the token reaches, which also proves the core accepts it. */
async function verifyOnCore(baseUrl: string, token: string, ca: string | undefined): Promise<Deployment[]> {
  try {
    return await fetchDeployments({ baseUrl, token, ca, userAgent: 'meeting-memory-cli' });
  } catch (error) {
    throw toCliError(error, { command: 'deployments list', noun: 'deployments', listable: true, write: false, flagOf: (name) => `--${name}` });
  }
}

/** Removes what an earlier sign-in of the profile kept elsewhere, so no stale secret outlives a change of storage. */
async function forgetPrevious(name: string, previous: Profile | undefined, store: CredentialStore, env: NodeJS.ProcessEnv): Promise<void> {
  if (previous === undefined || previous.storage === store.kind || previous.storage === 'none') return;
  try {
    const old = await openCredentialStore(previous.storage, { credentialsFile: profileSignIn(name, previous, env).credentialsFile, env });
    await old.delete(name, 'client-secret');
    await old.delete(name, 'token-cache');
  } catch {
    // The old storage may be gone (no keychain any more); the profile no longer points at it either way.
  }
}

/**
 * Signs a profile in: gets a token with MSAL, proves it on the core (and that a chosen deployment is reachable),
 * then keeps the secret and MSAL's token cache in the store and saves the profile. Nothing is written unless the
 * sign-in works. Returns the deployments the principal can reach.
 */
export async function completeSignIn(plan: SignInPlan, env: NodeJS.ProcessEnv): Promise<Deployment[]> {
  const { name, profile, store } = plan;
  let serialized: string | undefined;
  let deployments: Deployment[];
  try {
    const ca = await readCaFile(profile.ca_file);
    const token = await acquireTokenWithMsal(
      { authority: profile.authority, clientId: profile.client_id, scope: profile.scope, ca, credential: plan.credential },
      { load: async () => undefined, save: async (cache) => void (serialized = cache) },
    );
    deployments = await verifyOnCore(profile.base_url, token.accessToken, ca);
  } catch (error) {
    throw signInCliError(error);
  }
  if (profile.deployment !== undefined && !deployments.some((deployment) => deployment.id === profile.deployment)) {
    throw usageError(`Deployment ${profile.deployment} is not one this principal can reach.`, `pass one of: ${describeDeployments(deployments)}`);
  }
  const previous = await findProfile(name, env);
  await storing(name, async () => {
    await forgetPrevious(name, previous, store, env);
    if (plan.secretToKeep !== undefined) await store.set(name, 'client-secret', plan.secretToKeep);
    else await store.delete(name, 'client-secret');
    if (serialized !== undefined) await store.set(name, 'token-cache', serialized);
  });
  await saveProfile(name, profile, env);
  return deployments;
}

/** `Atlas (id, read_write); Juniper (id, read)`. */
export function describeDeployments(deployments: readonly Deployment[]): string {
  if (deployments.length === 0) return 'none';
  return deployments.map((deployment) => `${deployment.name} (${deployment.id}, ${deployment.access})`).join('; ');
}

/** The current time as the contract writes timestamps: `YYYY-MM-DDThh:mm:ssZ`. */
export function nowTimestamp(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}
