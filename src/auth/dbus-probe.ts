import { existsSync } from 'node:fs';
import { connect, type NetConnectOpts } from 'node:net';
import { join } from 'node:path';

/** Whether the D-Bus session bus answers, and why not when it does not. */
export type BusProbe = { ok: true } | { ok: false; reason: string };

type Endpoint = { label: string; options: NetConnectOpts };

/** Unescapes a D-Bus address value (RFC-style `%xx` escapes). */
function unescapeValue(value: string): string {
  return value.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function parseEntry(entry: string): Endpoint | 'unknown' {
  const colon = entry.indexOf(':');
  const transport = entry.slice(0, colon);
  const keys = Object.fromEntries(
    entry
      .slice(colon + 1)
      .split(',')
      .map((pair) => pair.split('=', 2) as [string, string | undefined])
      .map(([key, value]) => [key, unescapeValue(value ?? '')]),
  );
  if (transport === 'unix' && keys.path) return { label: keys.path, options: { path: keys.path } };
  if (transport === 'unix' && keys.abstract) return { label: `@${keys.abstract}`, options: { path: `\0${keys.abstract}` } };
  if (transport === 'tcp' && keys.port) {
    return { label: `${keys.host ?? 'localhost'}:${keys.port}`, options: { host: keys.host ?? 'localhost', port: Number(keys.port) } };
  }
  return 'unknown';
}

/**
 * Where libdbus would connect for the session bus: the first unix or tcp entry of `DBUS_SESSION_BUS_ADDRESS`, or
 * `$XDG_RUNTIME_DIR/bus` when the variable is unset. `'unknown'` for transports this probe does not speak (the
 * native library is then trusted to handle them); a string reason when there is no bus at all.
 */
export function sessionBusEndpoint(env: NodeJS.ProcessEnv): Endpoint | 'unknown' | { none: string } {
  const address = env.DBUS_SESSION_BUS_ADDRESS?.trim();
  if (!address) {
    const runtimeBus = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'bus') : undefined;
    if (runtimeBus && existsSync(runtimeBus)) return { label: runtimeBus, options: { path: runtimeBus } };
    return { none: 'there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)' };
  }
  const entries = address.split(';').filter((entry) => entry.includes(':'));
  for (const entry of entries) {
    const parsed = parseEntry(entry);
    if (parsed !== 'unknown') return parsed;
  }
  return 'unknown';
}

/**
 * Checks that the session bus answers the first step of the D-Bus handshake (SASL `AUTH EXTERNAL`) within
 * `timeoutMs`. The native keyring connects to the bus synchronously on the main thread and never gives up when the
 * bus accepts the connection but does not answer, so this probe runs first: a hung bus then costs `timeoutMs`, not
 * the whole command.
 */
export async function probeSessionBus(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<BusProbe> {
  const endpoint = sessionBusEndpoint(env);
  if (endpoint === 'unknown') return { ok: true };
  if ('none' in endpoint) return { ok: false, reason: endpoint.none };
  const uid = String(process.getuid?.() ?? 0);
  const hexUid = Buffer.from(uid, 'ascii').toString('hex');
  return new Promise<BusProbe>((resolve) => {
    const socket = connect(endpoint.options);
    const finish = (result: BusProbe) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish({ ok: false, reason: `the D-Bus session bus at ${endpoint.label} did not answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.once('connect', () => socket.write(`\0AUTH EXTERNAL ${hexUid}\r\n`));
    // Any answer (OK, or REJECTED with the mechanisms it offers) shows a live bus; the native library finishes
    // the handshake its own way.
    socket.once('data', () => finish({ ok: true }));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      finish({ ok: false, reason: `the D-Bus session bus at ${endpoint.label} cannot be reached (${error.code ?? error.message})` }),
    );
    socket.once('end', () => finish({ ok: false, reason: `the D-Bus session bus at ${endpoint.label} closed the connection` }));
  });
}
