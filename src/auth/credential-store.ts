import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { KEYCHAIN_SERVICE, openKeychain, type Keychain } from './keychain.js';

/**
 * Where a profile keeps its client secret and MSAL token cache: the OS keychain, an unencrypted file the user asked
 * for with `--insecure-storage`, or nowhere (the secret comes from `MEMORY_CLIENT_SECRET` or a certificate file, and
 * tokens are cached for one process only).
 */
export type StorageKind = 'keychain' | 'file' | 'none';

/** The two things kept per profile. */
export type CredentialItem = 'client-secret' | 'token-cache';

/** Storage for a profile's secrets. */
export interface CredentialStore {
  readonly kind: StorageKind;
  /** Where the secrets are, in words, for `memory auth status` and `memory login`. */
  describe(profile: string): string;
  get(profile: string, item: CredentialItem): Promise<string | undefined>;
  set(profile: string, item: CredentialItem, value: string): Promise<void>;
  delete(profile: string, item: CredentialItem): Promise<void>;
}

/** The keychain account of one profile's item, e.g. `work/client-secret`. */
export function keychainAccount(profile: string, item: CredentialItem): string {
  return `${profile}/${item}`;
}

/** A store in the OS keychain: service `meeting-memory`, account `<profile>/<item>`. */
export function keychainStore(keychain: Keychain): CredentialStore {
  return {
    kind: 'keychain',
    describe: (profile) =>
      `${keychain.description}, service "${KEYCHAIN_SERVICE}", accounts "${keychainAccount(profile, 'client-secret')}" and "${keychainAccount(profile, 'token-cache')}"`,
    get: (profile, item) => keychain.get(keychainAccount(profile, item)),
    set: (profile, item, value) => keychain.set(keychainAccount(profile, item), value),
    delete: async (profile, item) => void (await keychain.delete(keychainAccount(profile, item))),
  };
}

/** Secrets for this process only: nothing is written anywhere. */
export function memoryStore(): CredentialStore {
  const values = new Map<string, string>();
  return {
    kind: 'none',
    describe: () => 'nowhere on disk: the secret comes from the environment or a key file, tokens live for one command',
    get: async (profile, item) => values.get(keychainAccount(profile, item)),
    set: async (profile, item, value) => void values.set(keychainAccount(profile, item), value),
    delete: async (profile, item) => void values.delete(keychainAccount(profile, item)),
  };
}

type FileContent = { profiles: Record<string, Partial<Record<CredentialItem, string>>> };

/** A file that grants group or others any access is refused, as ssh refuses a readable private key. */
export class InsecureFileError extends Error {
  constructor(readonly file: string) {
    super(`The credentials file ${file} is readable by other users.`);
    this.name = 'InsecureFileError';
  }
}

async function readContent(file: string): Promise<FileContent> {
  let text: string;
  try {
    const info = await stat(file);
    if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) throw new InsecureFileError(file);
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<FileContent>;
  return { profiles: parsed.profiles ?? {} };
}

/** Owner-only, written whole to a temporary file and renamed, so a reader never sees half of it. */
async function writeContent(file: string, content: FileContent): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

/**
 * The `--insecure-storage` store: one JSON file, mode 0600 in a 0700 directory, unencrypted. Anyone who can read
 * the file as this user (or a backup of it) holds the secret, which is why the CLI warns whenever it is used.
 */
export function fileStore(file: string): CredentialStore {
  /** Applies a change and writes the file, unless the change reports that it changed nothing. */
  const update = async (change: (content: FileContent) => boolean) => {
    const content = await readContent(file);
    if (change(content)) await writeContent(file, content);
  };
  return {
    kind: 'file',
    describe: () => `the unencrypted file ${file} (mode 0600)`,
    get: async (profile, item) => (await readContent(file)).profiles[profile]?.[item],
    set: (profile, item, value) =>
      update((content) => {
        content.profiles[profile] = { ...content.profiles[profile], [item]: value };
        return true;
      }),
    delete: (profile, item) =>
      update((content) => {
        const entry = content.profiles[profile];
        if (entry?.[item] === undefined) return false;
        delete entry[item];
        if (Object.keys(entry).length === 0) delete content.profiles[profile];
        return true;
      }),
  };
}

/**
 * Opens a profile's store. The keychain's native module is loaded and its bus probed only here, so commands that
 * never need a secret never touch it; a missing or hung keychain throws `KeychainUnavailableError`.
 */
export async function openCredentialStore(
  kind: StorageKind,
  options: { credentialsFile: string; env?: NodeJS.ProcessEnv },
): Promise<CredentialStore> {
  if (kind === 'file') return fileStore(options.credentialsFile);
  if (kind === 'none') return memoryStore();
  return keychainStore(await openKeychain({ env: options.env }));
}
