import { resolve } from 'node:path';
import { Agent, request } from 'undici';
import { normalizeThumbprint, readCertificateCredential } from '../../auth/certificate.js';
import { openCredentialStore } from '../../auth/credential-store.js';
import type { MsalSignIn } from '../../auth/msal-sign-in.js';
import { CLIENT_SECRET_ENV, environmentSecret, readCaFile, storageFailure } from '../../auth/token-source.js';
import { normalizeBaseUrl } from '../../client/index.js';
import { signInCliError } from '../connection.js';
import { authError, CliError, usageError } from '../errors.js';
import { findProfile, insecureStorageWarning, profileName, profileSignIn, readProfiles, removeProfile, type Profile } from '../profiles.js';
import type { LoginFlags, LogoutFlags } from './login.js';
import { chooseStorage, completeSignIn, describeDeployments, nowTimestamp } from './login-flow.js';
import { promptSecret, readSecretFromStdin } from './login-secret.js';

/** The scope a client requests for the memory API unless told otherwise. */
export const DEFAULT_SCOPE = 'api://meeting-memory/.default';
const ENTRA = 'https://login.microsoftonline.com';

/** Where the secret comes from: given now (stdin or prompt, kept), the environment (not kept), or a certificate. */
type SecretSource =
  | { from: 'given' | 'environment'; secret: string }
  | { from: 'certificate'; credential: Extract<MsalSignIn['credential'], { kind: 'certificate' }> };

function absolute(path: string | undefined): string | undefined {
  return path === undefined ? undefined : resolve(path);
}

/** The core's REST root as a profile keeps it, with `/v1` added to a bare origin. */
function checkedBaseUrl(baseUrl: string): string {
  try {
    return normalizeBaseUrl(baseUrl).toString();
  } catch {
    throw usageError(`The core address "${baseUrl}" is not an http(s) URL.`, 'pass --base-url https://host:8443/v1');
  }
}

/**
 * The origin of the core's built-in issuer when `GET /v1/health` says the core has one (`issuer: "builtin"`), else
 * undefined: then the tenant's authority is Entra ID's.
 */
async function builtinIssuerOrigin(baseUrl: string, ca: string | undefined): Promise<string | undefined> {
  const dispatcher = new Agent(ca ? { connect: { ca } } : {});
  try {
    const response = await request(`${baseUrl.replace(/\/+$/, '')}/health`, { dispatcher, signal: AbortSignal.timeout(5000) });
    const body = (await response.body.json().catch(() => ({}))) as { issuer?: unknown };
    return response.statusCode === 200 && body.issuer === 'builtin' ? new URL(baseUrl).origin : undefined;
  } catch {
    return undefined;
  } finally {
    await dispatcher.close();
  }
}

async function authorityOf(flags: LoginFlags, existing: Profile | undefined, baseUrl: string, caFile: string | undefined): Promise<string> {
  if (flags.authority !== undefined) {
    try {
      const url = new URL(flags.authority);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
    } catch {
      throw usageError(`The authority "${flags.authority}" is not a URL.`, 'pass e.g. --authority https://login.microsoftonline.com/<tenant-id>');
    }
    return flags.authority.replace(/\/+$/, '');
  }
  if (flags.tenant !== undefined) {
    const tenant = flags.tenant.trim();
    if (!/^[A-Za-z0-9.-]+$/.test(tenant)) throw usageError(`"${flags.tenant}" is not a tenant id.`, 'pass the directory (tenant) id, a UUID');
    const ca = await readCaFile(caFile).catch((error: unknown) => {
      throw signInCliError(error);
    });
    return `${(await builtinIssuerOrigin(baseUrl, ca)) ?? ENTRA}/${tenant}`;
  }
  if (existing !== undefined) return existing.authority;
  throw usageError('memory login needs the tenant.', 'pass --tenant <tenant-id> (or --authority <url>)');
}

async function secretSource(flags: LoginFlags, clientId: string, env: NodeJS.ProcessEnv): Promise<SecretSource> {
  if (flags.clientSecretStdin) return { from: 'given', secret: await readSecretFromStdin() };
  const fromEnv = environmentSecret(env);
  if (fromEnv !== undefined) return { from: 'environment', secret: fromEnv };
  if (process.stdin.isTTY) return { from: 'given', secret: await promptSecret(`Client secret for ${clientId}: `) };
  throw authError(
    'No client secret given, and stdin is not a terminal to ask on.',
    `pipe it: printf %s "$SECRET" | memory login --client-secret-stdin ..., or set ${CLIENT_SECRET_ENV}, or use --certificate and --private-key`,
  );
}

/** Certificate flags ask for a certificate sign-in; a certificate profile stays one unless a secret is given. */
function wantsCertificate(flags: LoginFlags, existing: Profile | undefined, env: NodeJS.ProcessEnv): boolean {
  if (flags.certificate !== undefined || flags.privateKey !== undefined || flags.thumbprint !== undefined) return true;
  return existing?.credential === 'certificate' && !flags.clientSecretStdin && environmentSecret(env) === undefined;
}

/** The certificate fields of the profile and the credential MSAL signs with. */
async function certificateOf(flags: LoginFlags, existing: Profile | undefined) {
  const files = {
    privateKeyFile: absolute(flags.privateKey) ?? existing?.private_key_file,
    certificateFile: absolute(flags.certificate) ?? (flags.thumbprint === undefined ? existing?.certificate_file : undefined),
    thumbprint: flags.thumbprint ?? (flags.certificate === undefined ? existing?.thumbprint : undefined),
  };
  if (files.privateKeyFile === undefined) throw usageError('A certificate sign-in needs its private key.', 'pass --private-key <pem>');
  if (files.thumbprint !== undefined && normalizeThumbprint(files.thumbprint) === undefined) {
    throw usageError(`--thumbprint "${files.thumbprint}" is not 40 or 64 hex digits.`);
  }
  const credential = await readCertificateCredential({ ...files, privateKeyFile: files.privateKeyFile }).catch((error: unknown) => {
    throw signInCliError(error);
  });
  const fields = {
    private_key_file: files.privateKeyFile,
    ...(files.certificateFile ? { certificate_file: files.certificateFile } : {}),
    ...(files.thumbprint ? { thumbprint: normalizeThumbprint(files.thumbprint) } : {}),
  };
  return { fields, credential: { kind: 'certificate' as const, ...credential } };
}

function reportSignIn(name: string, profile: Profile, storeDescription: string, deployments: Parameters<typeof describeDeployments>[0]): void {
  process.stderr.write(`Signed in: profile "${name}", client ${profile.client_id} at ${profile.authority}.\n`);
  process.stderr.write(`Secrets: ${storeDescription}.\n`);
  process.stderr.write(`Deployments: ${describeDeployments(deployments)}.\n`);
}

/** `memory login`: signs in with client credentials and saves the profile (or, with `--demo`, the demo's profiles). */
export async function runLogin(flags: LoginFlags, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (flags.demo) {
    const { runDemoLogin } = await import('./login-demo.js');
    return runDemoLogin(flags, env);
  }
  if (flags.dataDir !== undefined) throw usageError('--data-dir goes with --demo.');
  const name = profileName(flags.profile, env);
  const existing = await findProfile(name, env);
  const rawBaseUrl = flags.baseUrl ?? existing?.base_url ?? (env.MEMORY_BASE_URL?.trim() || undefined);
  if (rawBaseUrl === undefined) throw usageError('memory login needs the core address.', 'pass --base-url https://host:8443/v1');
  const baseUrl = checkedBaseUrl(rawBaseUrl);
  const clientId = flags.clientId ?? existing?.client_id;
  if (clientId === undefined) throw usageError('memory login needs the client id.', 'pass --client-id <application-id>');
  const caFile = absolute(flags.caFile) ?? existing?.ca_file ?? absolute(env.MEMORY_CA_FILE?.trim() || undefined);
  const authority = await authorityOf(flags, existing, baseUrl, caFile);

  const certificate = wantsCertificate(flags, existing, env) ? await certificateOf(flags, existing) : undefined;
  const source: SecretSource = certificate ? { from: 'certificate', credential: certificate.credential } : await secretSource(flags, clientId, env);
  const { store, keychainProblem } = await chooseStorage(Boolean(flags.insecureStorage), source.from === 'given', env);
  const profile: Profile = {
    base_url: baseUrl,
    authority,
    client_id: clientId,
    scope: flags.scope ?? existing?.scope ?? DEFAULT_SCOPE,
    ...(caFile ? { ca_file: caFile } : {}),
    ...((flags.deployment ?? existing?.deployment) ? { deployment: flags.deployment ?? existing?.deployment } : {}),
    credential: certificate ? 'certificate' : 'secret',
    ...certificate?.fields,
    storage: store.kind,
    signed_in_at: nowTimestamp(),
  };
  const credential: MsalSignIn['credential'] = source.from === 'certificate' ? source.credential : { kind: 'secret', secret: source.secret };
  const deployments = await completeSignIn(
    { name, profile, credential, store, ...(source.from === 'given' ? { secretToKeep: source.secret } : {}) },
    env,
  );
  reportSignIn(name, profile, store.describe(name), deployments);
  if (store.kind === 'file') process.stderr.write(insecureStorageWarning(env));
  if (source.from === 'environment') process.stderr.write(`note: the client secret was not stored: it comes from ${CLIENT_SECRET_ENV}, which later commands need too.\n`);
  if (keychainProblem !== undefined) process.stderr.write(`note: no usable OS keychain (${keychainProblem}), so tokens are not cached between commands.\n`);
}

/** `memory logout`: removes the profile's secret and token cache; `--forget` removes the profile too. */
export async function runLogout(flags: LogoutFlags, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const name = profileName(flags.profile, env);
  const profile = await findProfile(name, env);
  if (profile === undefined) {
    const names = Object.keys(await readProfiles(env));
    throw new CliError(`There is no profile "${name}" to sign out of.`, {
      hint: names.length > 0 ? `profiles: ${names.join(', ')}` : 'no one is signed in',
    });
  }
  const signIn = profileSignIn(name, profile, env);
  try {
    const store = await openCredentialStore(profile.storage, { credentialsFile: signIn.credentialsFile, env });
    await store.delete(name, 'client-secret');
    await store.delete(name, 'token-cache');
    if (flags.forget) await removeProfile(name, env);
    process.stderr.write(
      `Signed out of profile "${name}": removed its client secret and token cache from ${store.describe(name)}${flags.forget ? ', and the profile' : ''}.\n`,
    );
  } catch (error) {
    throw signInCliError(storageFailure(error, name));
  }
}
