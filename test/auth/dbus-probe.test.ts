import { createServer, type Server } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSessionBus, sessionBusEndpoint } from '../../src/auth/dbus-probe.js';

let dir: string;
const servers: Server[] = [];

/** A unix-socket server that answers the first bytes it gets with `reply` (or never, when undefined). */
async function fakeBus(path: string, reply?: string): Promise<{ received: () => string }> {
  let received = '';
  const server = createServer((socket) => {
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (reply !== undefined) socket.write(reply);
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { received: () => received };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memory-dbus-'));
});

afterAll(async () => {
  for (const server of servers) server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('sessionBusEndpoint', () => {
  it('reads unix paths, abstract sockets and tcp from DBUS_SESSION_BUS_ADDRESS, unescaping values', () => {
    expect(sessionBusEndpoint({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' })).toMatchObject({ options: { path: '/run/user/1000/bus' } });
    expect(sessionBusEndpoint({ DBUS_SESSION_BUS_ADDRESS: 'unix:abstract=/tmp/dbus-x,guid=ab' })).toMatchObject({ options: { path: '\0/tmp/dbus-x' } });
    expect(sessionBusEndpoint({ DBUS_SESSION_BUS_ADDRESS: 'tcp:host=127.0.0.1,port=5555' })).toMatchObject({ options: { host: '127.0.0.1', port: 5555 } });
    expect(sessionBusEndpoint({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/tmp/a%20b' })).toMatchObject({ options: { path: '/tmp/a b' } });
    expect(sessionBusEndpoint({ DBUS_SESSION_BUS_ADDRESS: 'launchd:env=X;unix:path=/second' })).toMatchObject({ options: { path: '/second' } });
  });

  it('leaves transports it cannot probe to the native library, and finds the runtime-dir bus when the variable is unset', async () => {
    expect(sessionBusEndpoint({ DBUS_SESSION_BUS_ADDRESS: 'launchd:env=DBUS_LAUNCHD_SESSION_BUS_SOCKET' })).toBe('unknown');
    expect(sessionBusEndpoint({})).toEqual({ none: expect.stringContaining('DBUS_SESSION_BUS_ADDRESS is not set') });
    await writeFile(join(dir, 'bus'), '');
    expect(sessionBusEndpoint({ XDG_RUNTIME_DIR: dir })).toMatchObject({ options: { path: join(dir, 'bus') } });
  });
});

describe('probeSessionBus', () => {
  it('is ok when the bus answers the SASL handshake, which it is sent with the uid in hex', async () => {
    const path = join(dir, 'live.sock');
    const bus = await fakeBus(path, 'OK 0123456789abcdef\r\n');
    expect(await probeSessionBus({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${path}` }, 2000)).toEqual({ ok: true });
    const uid = Buffer.from(String(process.getuid?.() ?? 0)).toString('hex');
    expect(bus.received()).toBe(`\0AUTH EXTERNAL ${uid}\r\n`);
  });

  it('gives up on a bus that accepts the connection but never answers, within the timeout', async () => {
    const path = join(dir, 'hung.sock');
    await fakeBus(path);
    const started = Date.now();
    const probe = await probeSessionBus({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${path}` }, 300);
    expect(probe).toEqual({ ok: false, reason: `the D-Bus session bus at ${path} did not answer within 300 ms` });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('names a socket that is not there, and a missing bus', async () => {
    const probe = await probeSessionBus({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'absent.sock')}` }, 1000);
    expect(probe).toMatchObject({ ok: false, reason: expect.stringContaining('cannot be reached (ENOENT)') });
    expect(await probeSessionBus({}, 1000)).toMatchObject({ ok: false, reason: expect.stringContaining('no D-Bus session bus') });
  });
});
