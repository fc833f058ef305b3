import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { ProfileSignIn } from '../auth/token-source.js';
import { CliError, usageError } from './errors.js';

/**
 * A signed-in profile as `profiles.json` keeps it: where the core and the issuer are and who signs in. Never a
 * secret: the client secret and the token cache live in the OS keychain (or the `--insecure-storage` file).
 */
export const Profile = z.object({
  /** The core's REST root, e.g. `https://memory.example.com/v1`. */
  base_url: z.string(),
  /** `https://login.microsoftonline.com/<tenant>` or a self-hosted core's `<origin>/<tenant>`. */
  authority: z.string(),
  client_id: z.string(),
  scope: z.string(),
  ca_file: z.string().optional(),
  /** The deployment commands use when none is named. */
  deployment: z.string().optional(),
  credential: z.enum(['secret', 'certificate']),
  certificate_file: z.string().optional(),
  private_key_file: z.string().optional(),
  thumbprint: z.string().optional(),
  /** Where the secret and the token cache are: keychain, file (`--insecure-storage`), or none (environment). */
  storage: z.enum(['keychain', 'file', 'none']),
  signed_in_at: z.string(),
});
export type Profile = z.infer<typeof Profile>;

const ProfilesFile = z.object({ version: z.literal(1), profiles: z.record(z.string(), Profile) });
type ProfilesFile = z.infer<typeof ProfilesFile>;

/** The profile commands use when none is named. */
export const DEFAULT_PROFILE = 'default';

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Refuses a profile name that could not be a file-safe keychain account: letters, digits, `.`, `_`, `-`. */
export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw usageError(`"${name}" is not a usable profile name.`, 'use letters, digits, ".", "_" and "-" (at most 64), e.g. --profile work');
  }
  return name;
}

/**
 * The per-user config directory: `$XDG_CONFIG_HOME/meeting-memory` when that is set (on any OS), else
 * `%APPDATA%\meeting-memory` on Windows, `~/Library/Application Support/meeting-memory` on macOS and
 * `~/.config/meeting-memory` elsewhere.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'meeting-memory');
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'meeting-memory');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'meeting-memory');
  return join(homedir(), '.config', 'meeting-memory');
}

/** The profile name a command means: the flag, else `MEMORY_PROFILE`, else `default`. */
export function profileName(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return checkProfileName(flag ?? (env.MEMORY_PROFILE?.trim() || DEFAULT_PROFILE));
}

/** The warning `--insecure-storage` earns at sign-in, repeated by `memory auth status`. */
export function insecureStorageWarning(env: NodeJS.ProcessEnv = process.env): string {
  return `warning: the client secret and tokens are stored unencrypted in ${insecureCredentialsFile(env)} (mode 0600) because of --insecure-storage; anyone who can read that file can act as this principal. Prefer the OS keychain, or MEMORY_CLIENT_SECRET from a secret manager.\n`;
}

/** `profiles.json` in the config dir: the non-secret fields of every profile. */
export function profilesFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'profiles.json');
}

/** `credentials.json` in the config dir: secrets and token caches of `--insecure-storage` profiles, mode 0600. */
export function insecureCredentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'credentials.json');
}

async function readProfilesFile(env: NodeJS.ProcessEnv): Promise<ProfilesFile> {
  const file = profilesFile(env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, profiles: {} };
    throw new CliError(`Cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = ProfilesFile.safeParse(json);
  if (!parsed.success) {
    throw new CliError(`The profiles file ${file} is damaged.`, { hint: `fix or remove it, then run \`memory login\`` });
  }
  return parsed.data;
}

async function writeProfilesFile(env: NodeJS.ProcessEnv, content: ProfilesFile): Promise<void> {
  const file = profilesFile(env);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

/** Every profile, by name. */
export async function readProfiles(env: NodeJS.ProcessEnv = process.env): Promise<Record<string, Profile>> {
  return (await readProfilesFile(env)).profiles;
}

/** One profile, or undefined when there is none by that name. */
export async function findProfile(name: string, env: NodeJS.ProcessEnv = process.env): Promise<Profile | undefined> {
  const profiles = await readProfiles(env);
  return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
}

/** Adds or replaces a profile. */
export async function saveProfile(name: string, profile: Profile, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const content = await readProfilesFile(env);
  content.profiles[checkProfileName(name)] = profile;
  await writeProfilesFile(env, content);
}

/** Removes a profile; true when there was one. */
export async function removeProfile(name: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const content = await readProfilesFile(env);
  if (!Object.hasOwn(content.profiles, name)) return false;
  delete content.profiles[name];
  await writeProfilesFile(env, content);
  return true;
}

/** What the token source needs of a profile. */
export function profileSignIn(name: string, profile: Profile, env: NodeJS.ProcessEnv = process.env): ProfileSignIn {
  return {
    profile: name,
    authority: profile.authority,
    clientId: profile.client_id,
    scope: profile.scope,
    ...(profile.ca_file ? { caFile: profile.ca_file } : {}),
    credential:
      profile.credential === 'certificate'
        ? {
            kind: 'certificate',
            privateKeyFile: profile.private_key_file ?? '',
            ...(profile.certificate_file ? { certificateFile: profile.certificate_file } : {}),
            ...(profile.thumbprint ? { thumbprint: profile.thumbprint } : {}),
          }
        : { kind: 'secret' },
    storage: profile.storage,
    credentialsFile: insecureCredentialsFile(env),
  };
}
