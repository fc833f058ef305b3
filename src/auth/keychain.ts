import { probeSessionBus } from './dbus-probe.js';

/** The keychain service every secret of this CLI is filed under; accounts name the profile and the item. */
export const KEYCHAIN_SERVICE = 'meeting-memory';

/** How long one keychain step may take unless `MEMORY_KEYCHAIN_TIMEOUT_MS` says otherwise. */
export const DEFAULT_KEYCHAIN_TIMEOUT_MS = 5000;

/**
 * Windows Credential Manager holds at most 2560 bytes per credential (UTF-16, so 1280 characters); a token cache
 * is longer, so long values are split over numbered entries on every platform alike.
 */
const CHUNK_CHARS = 1000;
const CHUNK_MARKER = '\u0000meeting-memory-chunks:';

/** No usable OS keychain: the reason says what is missing, for the user to act on. */
export class KeychainUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`No usable OS keychain: ${reason}.`);
    this.name = 'KeychainUnavailableError';
  }
}

/** The OS keychain, as string values under accounts of {@link KEYCHAIN_SERVICE}. */
export interface Keychain {
  /** Which keychain this is, for `memory auth status`. */
  readonly description: string;
  get(account: string): Promise<string | undefined>;
  set(account: string, value: string): Promise<void>;
  /** True when something was deleted. */
  delete(account: string): Promise<boolean>;
}

export interface OpenKeychainOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

type KeyringModule = typeof import('@napi-rs/keyring');
type AsyncEntry = InstanceType<KeyringModule['AsyncEntry']>;

function describe(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service keyring (GNOME Keyring, KWallet) over D-Bus';
}

/** The keychain step timeout: `MEMORY_KEYCHAIN_TIMEOUT_MS` when it is a positive number. */
export function keychainTimeoutMs(env: NodeJS.ProcessEnv): number {
  const configured = Number(env.MEMORY_KEYCHAIN_TIMEOUT_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_KEYCHAIN_TIMEOUT_MS;
}

/** True when `MEMORY_NO_KEYCHAIN` asks to leave the keychain alone. */
export function keychainTurnedOff(env: NodeJS.ProcessEnv): boolean {
  const value = env.MEMORY_NO_KEYCHAIN?.trim() ?? '';
  return value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

async function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, timeoutMs: number, what: string): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new KeychainUnavailableError(`the keychain did not ${what} within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

function failure(error: unknown, what: string): KeychainUnavailableError {
  if (error instanceof KeychainUnavailableError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new KeychainUnavailableError(`the keychain could not ${what} (${message.replace(/\s+/g, ' ').trim()})`);
}

async function loadKeyring(timeoutMs: number): Promise<KeyringModule> {
  try {
    return await withTimeout(() => import('@napi-rs/keyring'), timeoutMs, 'load');
  } catch (error) {
    throw failure(error, 'load its native module');
  }
}

/**
 * Opens the OS keychain through `@napi-rs/keyring`, loaded only now. On Linux the Secret Service (GNOME Keyring,
 * KWallet) is required, never the kernel keyring, which forgets everything at logout; its D-Bus session bus is probed
 * first so a hung bus fails within the timeout instead of hanging. Throws {@link KeychainUnavailableError} when
 * there is no usable keychain or `MEMORY_NO_KEYCHAIN` is set.
 */
export async function openKeychain(options: OpenKeychainOptions = {}): Promise<Keychain> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const timeoutMs = keychainTimeoutMs(env);
  if (keychainTurnedOff(env)) throw new KeychainUnavailableError('it is turned off by MEMORY_NO_KEYCHAIN');
  const secretService = platform !== 'darwin' && platform !== 'win32';
  if (secretService) {
    const bus = await probeSessionBus(env, timeoutMs);
    if (!bus.ok) throw new KeychainUnavailableError(bus.reason);
  }
  const keyring = await loadKeyring(timeoutMs);
  const entryOptions = secretService ? { linux: { store: 'secret-service' as const } } : undefined;
  const entry = (account: string): AsyncEntry => {
    try {
      return new keyring.AsyncEntry(KEYCHAIN_SERVICE, account, entryOptions);
    } catch (error) {
      throw failure(error, 'be opened');
    }
  };
  const step = async <T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      return await withTimeout(work, timeoutMs, what);
    } catch (error) {
      throw failure(error, what);
    }
  };
  const read = (account: string) =>
    step('read a secret', async (signal) => (await entry(account).getPassword(signal)) ?? undefined);
  const write = (account: string, value: string) => step('store a secret', (signal) => entry(account).setPassword(value, signal));
  const remove = (account: string) => step('delete a secret', (signal) => entry(account).deletePassword(signal));

  const chunkCount = (stored: string | undefined) =>
    stored?.startsWith(CHUNK_MARKER) ? Number(stored.slice(CHUNK_MARKER.length)) || 0 : 0;
  const removeChunks = async (account: string, from: number, to: number) => {
    for (let index = from; index <= to; index += 1) await remove(`${account}#${index}`);
  };

  return {
    description: describe(platform),
    async get(account) {
      const stored = await read(account);
      const count = chunkCount(stored);
      if (count === 0) return stored;
      const parts: string[] = [];
      for (let index = 1; index <= count; index += 1) {
        const part = await read(`${account}#${index}`);
        // A chunk missing means a write was interrupted: treat the value as absent rather than return half.
        if (part === undefined) return undefined;
        parts.push(part);
      }
      return parts.join('');
    },
    async set(account, value) {
      const previous = chunkCount(await read(account));
      if (value.length <= CHUNK_CHARS && !value.startsWith(CHUNK_MARKER)) {
        await write(account, value);
        await removeChunks(account, 1, previous);
        return;
      }
      const count = Math.ceil(value.length / CHUNK_CHARS);
      for (let index = 1; index <= count; index += 1) {
        await write(`${account}#${index}`, value.slice((index - 1) * CHUNK_CHARS, index * CHUNK_CHARS));
      }
      await write(account, `${CHUNK_MARKER}${count}`);
      await removeChunks(account, count + 1, previous);
    },
    async delete(account) {
      const count = chunkCount(await read(account));
      await removeChunks(account, 1, count);
      return remove(account);
    },
  };
}
