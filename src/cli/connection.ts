import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { SignInError } from '../auth/sign-in-error.js';
import type { TokenSource } from '../client/index.js';
import { authError, CliError, EXIT, usageError } from './errors.js';
import type { Profile } from './profiles.js';

/** The flags every memory command takes to say where the core is and which deployment to use. */
export interface GlobalOptions {
  profile?: string;
  deployment?: string;
  baseUrl?: string;
  caFile?: string;
}

/** How to reach the core: its REST root, a token per request, the CA to trust, the deployment to default to. */
export interface Connection {
  baseUrl: string;
  /** Called before every request, so a token can refresh during a long command. */
  token: TokenSource;
  /** PEM of the CA a self-hosted core's certificate chains to; undefined trusts the system store. */
  ca?: string;
  defaultDeployment?: string;
}

const SIGN_IN_HINT = 'set MEMORY_BASE_URL and MEMORY_TOKEN, or run `memory login`';

/** Adds the connection flags (`--profile`, `--base-url`, `--ca-file`) to a command. */
export function addConnectionOptions(command: Command): Command {
  return command
    .addOption(new Option('--profile <name>', 'signed-in profile to use (env MEMORY_PROFILE)'))
    .addOption(new Option('--base-url <url>', 'REST root of the core, e.g. https://host:8443/v1 (env MEMORY_BASE_URL)'))
    .addOption(new Option('--ca-file <path>', "PEM file of a self-hosted core's CA (env MEMORY_CA_FILE)"));
}

/**
 * Works out how to reach the core. Flags win over the environment (`MEMORY_BASE_URL`, `MEMORY_TOKEN`,
 * `MEMORY_CA_FILE`, `MEMORY_DEPLOYMENT`, `MEMORY_PROFILE`): `--profile` wins over `MEMORY_BASE_URL`, and
 * `MEMORY_PROFILE` applies only when no base URL is given. With neither a base URL nor a profile named, the
 * `default` profile is used when one was signed in. Missing address or token is an auth error (exit 4) that says how
 * to sign in.
 */
export async function resolveConnection(
  options: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Connection> {
  const baseUrl = options.baseUrl ?? nonEmpty(env.MEMORY_BASE_URL);
  const profile = options.profile ?? nonEmpty(env.MEMORY_PROFILE);
  const profileNamedByFlag = options.profile !== undefined && options.baseUrl === undefined;
  if (profile !== undefined && (profileNamedByFlag || baseUrl === undefined)) return profileConnection(profile, options, env);
  if (baseUrl === undefined) {
    const fallback = await defaultProfileConnection(options, env);
    if (fallback !== undefined) return fallback;
  }
  const token = nonEmpty(env.MEMORY_TOKEN);
  if (baseUrl === undefined || token === undefined) {
    const missing = [baseUrl === undefined && 'the core address', token === undefined && 'a token']
      .filter(Boolean)
      .join(' and ');
    throw authError(`Not signed in: ${missing} ${missing.includes(' and ') ? 'are' : 'is'} missing.`, SIGN_IN_HINT);
  }
  checkUrl(baseUrl);
  const caFile = options.caFile ?? nonEmpty(env.MEMORY_CA_FILE);
  return {
    baseUrl,
    token: () => token,
    ...(caFile ? { ca: await readCa(caFile) } : {}),
    defaultDeployment: options.deployment ?? nonEmpty(env.MEMORY_DEPLOYMENT),
  };
}

/**
 * A signed-in profile's connection (`memory login` stores profiles): its core, CA and deployment, each overridable
 * by flag or environment, and a token function that serves MSAL's cached token and renews it silently.
 */
async function profileConnection(name: string, options: GlobalOptions, env: NodeJS.ProcessEnv): Promise<Connection> {
  const { findProfile } = await import('./profiles.js');
  const profile = await findProfile(name, env);
  if (profile === undefined) {
    throw authError(`No signed-in profile "${name}".`, `run \`memory login --profile ${name}\`, or ${SIGN_IN_HINT}`);
  }
  return connectionOf(name, profile, options, env);
}

/** The `default` profile's connection, or undefined when no one signed in to it. */
async function defaultProfileConnection(options: GlobalOptions, env: NodeJS.ProcessEnv): Promise<Connection | undefined> {
  const { DEFAULT_PROFILE, findProfile } = await import('./profiles.js');
  const profile = await findProfile(DEFAULT_PROFILE, env);
  return profile === undefined ? undefined : connectionOf(DEFAULT_PROFILE, profile, options, env);
}

/** `MEMORY_TOKEN`, when set, is used instead of signing in: the profile then only says where the core is. */
async function connectionOf(name: string, profile: Profile, options: GlobalOptions, env: NodeJS.ProcessEnv): Promise<Connection> {
  const caFile = options.caFile ?? nonEmpty(env.MEMORY_CA_FILE) ?? profile.ca_file;
  const envToken = nonEmpty(env.MEMORY_TOKEN);
  return {
    baseUrl: profile.base_url,
    token: envToken === undefined ? await profileToken(name, profile, env) : () => envToken,
    ...(caFile ? { ca: await readCa(caFile) } : {}),
    defaultDeployment: options.deployment ?? nonEmpty(env.MEMORY_DEPLOYMENT) ?? profile.deployment,
  };
}

/** The profile's token function; MSAL and the keychain load on its first call, not before. */
async function profileToken(name: string, profile: Profile, env: NodeJS.ProcessEnv): Promise<() => Promise<string>> {
  const [{ createTokenSource }, { profileSignIn }] = await Promise.all([import('../auth/token-source.js'), import('./profiles.js')]);
  const source = createTokenSource(profileSignIn(name, profile, env), env);
  return () =>
    source().catch((error: unknown) => {
      throw signInCliError(error);
    });
}

/** A sign-in failure as the CLI reports it: exit 4 for refused or missing credentials, 1 unreachable, 2 bad flags. */
export function signInCliError(error: unknown): unknown {
  if (!(error instanceof SignInError)) return error;
  const exitCode = error.kind === 'auth' ? EXIT.auth : error.kind === 'usage' ? EXIT.usage : EXIT.error;
  return new CliError(error.message, { exitCode, hint: error.hint });
}

function checkUrl(baseUrl: string): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw usageError(`The core address "${baseUrl}" is not a URL.`, 'set MEMORY_BASE_URL (or --base-url) to e.g. https://host:8443/v1');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw usageError(`The core address "${baseUrl}" must start with https:// or http://.`);
  }
}

/** Reads the CA file a self-hosted core's certificate chains to. */
export async function readCa(path: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new CliError(`Cannot read the CA file ${path} (${reason}).`, { hint: 'check MEMORY_CA_FILE or --ca-file' });
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new CliError(`The CA file ${path} holds no PEM certificate.`, { hint: "point MEMORY_CA_FILE at the core's ca.pem" });
  }
  return pem;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
