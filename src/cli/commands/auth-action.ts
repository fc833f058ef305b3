import { openCredentialStore, type CredentialStore } from '../../auth/credential-store.js';
import { KeychainUnavailableError } from '../../auth/keychain.js';
import { isMicrosoftAuthority } from '../../auth/authority.js';
import { readCachedToken, tenantOfAuthority } from '../../auth/token-cache.js';
import { CLIENT_SECRET_ENV, environmentSecret, storageFailure } from '../../auth/token-source.js';
import { resolveConnection, signInCliError } from '../connection.js';
import { authError, CliError, EXIT } from '../errors.js';
import { findProfile, insecureCredentialsFile, insecureStorageWarning, profileName, readProfiles, type Profile } from '../profiles.js';
import type { AuthFlags } from './auth.js';

/** What `memory auth status` reports about a profile. */
interface ProfileStatus {
  profile: string;
  base_url: string;
  authority: string;
  issuer: 'entra' | 'builtin';
  client_id: string;
  scope: string;
  credential: Profile['credential'];
  deployment: string | null;
  storage: Profile['storage'];
  secrets_location: string;
  secret: 'stored' | 'missing' | 'environment' | 'certificate' | 'unreachable';
  token_expires_at: string | null;
  token_override: boolean;
  insecure_storage_file: string | null;
  problem: string | null;
  other_profiles: string[];
}

function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function openStore(profile: Profile, env: NodeJS.ProcessEnv): Promise<CredentialStore | KeychainUnavailableError> {
  try {
    return await openCredentialStore(profile.storage, { credentialsFile: insecureCredentialsFile(env), env });
  } catch (error) {
    if (error instanceof KeychainUnavailableError) return error;
    throw error;
  }
}

async function statusOf(name: string, profile: Profile, env: NodeJS.ProcessEnv): Promise<ProfileStatus> {
  const store = await openStore(profile, env);
  const reachable = !(store instanceof KeychainUnavailableError);
  const [secret, cache] = reachable
    ? await Promise.all([
        profile.credential === 'secret' ? store.get(name, 'client-secret') : undefined,
        store.get(name, 'token-cache'),
      ]).catch((error: unknown) => {
        throw signInCliError(storageFailure(error, name));
      })
    : [undefined, undefined];
  const cached = readCachedToken(cache, { clientId: profile.client_id, tenantId: tenantOfAuthority(profile.authority), scope: profile.scope });
  const secretState: ProfileStatus['secret'] =
    profile.credential === 'certificate'
      ? 'certificate'
      : environmentSecret(env) !== undefined
        ? 'environment'
        : !reachable
          ? 'unreachable'
          : secret === undefined
            ? 'missing'
            : 'stored';
  return {
    profile: name,
    base_url: profile.base_url,
    authority: profile.authority,
    issuer: isMicrosoftAuthority(profile.authority) ? 'entra' : 'builtin',
    client_id: profile.client_id,
    scope: profile.scope,
    credential: profile.credential,
    deployment: profile.deployment ?? null,
    storage: profile.storage,
    secrets_location: reachable ? store.describe(name) : 'the OS keychain',
    secret: secretState,
    token_expires_at: cached ? timestamp(cached.expiresOn) : null,
    token_override: (env.MEMORY_TOKEN?.trim() ?? '') !== '',
    insecure_storage_file: profile.storage === 'file' ? insecureCredentialsFile(env) : null,
    problem: reachable ? null : store.reason,
    other_profiles: Object.keys(await readProfiles(env)).filter((other) => other !== name),
  };
}

const SECRET_WORDS: Record<ProfileStatus['secret'], string> = {
  stored: 'client secret stored',
  missing: 'no client secret stored',
  environment: `client secret from ${CLIENT_SECRET_ENV}`,
  certificate: 'certificate',
  unreachable: 'keychain not reachable',
};

function expiryWords(expiresAt: string | null): string {
  if (expiresAt === null) return 'none cached (the next command signs in)';
  const minutes = Math.round((Date.parse(expiresAt) - Date.now()) / 60_000);
  return minutes > 0 ? `valid until ${expiresAt} (${minutes} min)` : `expired at ${expiresAt} (the next command renews it)`;
}

function statusLines(status: ProfileStatus): string {
  const rows: [string, string][] = [
    ['Profile', status.profile],
    ['Core', status.base_url],
    ['Authority', `${status.authority} (${status.issuer === 'entra' ? 'Entra ID' : "the core's built-in issuer"})`],
    ['Client id', status.client_id],
    ['Scope', status.scope],
    ['Deployment', status.deployment ?? '(the only one reachable, or --deployment)'],
    ['Credential', SECRET_WORDS[status.secret]],
    ['Secrets in', status.problem === null ? status.secrets_location : `${status.secrets_location}: ${status.problem}`],
    ['Token', status.token_override ? 'MEMORY_TOKEN from the environment is used instead' : expiryWords(status.token_expires_at)],
  ];
  if (status.other_profiles.length > 0) rows.push(['Other profiles', status.other_profiles.join(', ')]);
  return `${rows.map(([label, value]) => `${`${label}:`.padEnd(16)}${value}`).join('\n')}\n`;
}

/**
 * `memory auth status`: the profile's settings, whether its secret is where it should be, and the cached token's
 * expiry, without a network call. Exit 4 when the profile cannot sign in as it stands.
 */
export async function runAuthStatus(flags: AuthFlags, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const name = profileName(flags.profile, env);
  const profile = await findProfile(name, env);
  if (profile === undefined) {
    const names = Object.keys(await readProfiles(env));
    throw authError(
      `Not signed in: there is no profile "${name}".`,
      names.length > 0 ? `run \`memory login --profile ${name}\`, or use one of: ${names.join(', ')}` : 'run `memory login`',
    );
  }
  const status = await statusOf(name, profile, env);
  process.stdout.write(flags.json ? `${JSON.stringify(status, null, 2)}\n` : statusLines(status));
  if (profile.storage === 'file') process.stderr.write(insecureStorageWarning(env));
  if (status.secret === 'missing') {
    throw new CliError(`Profile "${name}" has no client secret in ${status.secrets_location}.`, {
      exitCode: EXIT.auth,
      hint: `run \`memory login --profile ${name}\`, or set ${CLIENT_SECRET_ENV}`,
    });
  }
  if (status.secret === 'unreachable') {
    throw new CliError(`Profile "${name}" keeps its secret in the OS keychain, which is not usable: ${status.problem}.`, {
      exitCode: EXIT.auth,
      hint: `set ${CLIENT_SECRET_ENV} or MEMORY_TOKEN, or run \`memory login --profile ${name} --insecure-storage\``,
    });
  }
}

/** `memory auth token`: a valid access token on stdout, for `TOKEN=$(memory auth token --profile demo-reader)`. */
export async function runAuthToken(flags: AuthFlags, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const connection = await resolveConnection({ profile: profileName(flags.profile, env) }, env);
  process.stdout.write(`${await connection.token()}\n`);
}
