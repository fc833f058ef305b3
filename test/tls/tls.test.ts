import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServerCertificate } from '../../src/tls/certificate.js';
import { createEphemeralTlsMaterial, ensureTlsMaterial } from '../../src/tls/index.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mm-tls-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sans(pem: string): string {
  return new X509Certificate(pem).subjectAltName ?? '';
}

async function serve(key: string, cert: string): Promise<Server> {
  const server = createServer({ key, cert }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function get(server: Server, options: { hostname: string; ca?: string; servername?: string }): Promise<string> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false, ...options }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('ensureTlsMaterial', () => {
  it('creates a CA and a server certificate once, with private keys readable by the owner only', async () => {
    const first = await ensureTlsMaterial(dir, ['memory.example.test']);
    const second = await ensureTlsMaterial(dir, ['memory.example.test']);

    expect(second).toEqual(first);
    expect(await readFile(first.caFile, 'utf8')).toBe(first.ca);
    expect(await readFile(first.certFile, 'utf8')).toBe(first.cert);
    expect(await readFile(first.keyFile, 'utf8')).toBe(first.key);
    expect((await stat(first.keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'ca-key.pem'))).mode & 0o777).toBe(0o600);

    const ca = new X509Certificate(first.ca);
    const leaf = new X509Certificate(first.cert);
    expect(ca.ca).toBe(true);
    expect(new Date(ca.validTo).getTime() - Date.now()).toBeGreaterThan(9 * 365 * 86_400_000);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca) && leaf.verify(ca.publicKey)).toBe(true);
    expect(sans(first.cert)).toBe(
      'DNS:memory.example.test, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
  });

  it('re-issues the server certificate under the same CA when the host set changes', async () => {
    const first = await ensureTlsMaterial(dir, []);
    const second = await ensureTlsMaterial(dir, ['10.1.2.3', 'Memory.Example.Test', '0.0.0.0']);
    const third = await ensureTlsMaterial(dir, ['memory.example.test', '10.1.2.3']);

    expect(second.ca).toBe(first.ca);
    expect(second.cert).not.toBe(first.cert);
    expect(second.key).not.toBe(first.key);
    expect(sans(second.cert)).toBe(
      'IP Address:10.1.2.3, DNS:memory.example.test, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    expect(third.cert).toBe(second.cert);
  });

  it('re-issues a server certificate within 30 days of expiry, and one that is corrupt', async () => {
    const first = await ensureTlsMaterial(dir, []);
    const shortLived = createServerCertificate(
      { cert: first.ca, key: await readFile(join(dir, 'ca-key.pem'), 'utf8') },
      ['localhost', '127.0.0.1', '::1'],
      20,
    );
    await writeFile(first.certFile, shortLived.cert);
    await writeFile(first.keyFile, shortLived.key);

    const renewed = await ensureTlsMaterial(dir, []);
    expect(renewed.cert).not.toBe(shortLived.cert);
    expect(new Date(new X509Certificate(renewed.cert).validTo).getTime() - Date.now()).toBeGreaterThan(300 * 86_400_000);

    await writeFile(first.certFile, 'not a certificate');
    const repaired = await ensureTlsMaterial(dir, []);
    expect(repaired.cert).toContain('BEGIN CERTIFICATE');
    expect(repaired.ca).toBe(first.ca);
  });

  it('replaces a CA whose key does not match, and then the server certificate too', async () => {
    const first = await ensureTlsMaterial(dir, []);
    const other = createEphemeralTlsMaterial([]);
    await writeFile(join(dir, 'ca-key.pem'), other.key);

    const replaced = await ensureTlsMaterial(dir, []);
    expect(replaced.ca).not.toBe(first.ca);
    expect(replaced.cert).not.toBe(first.cert);
    expect(new X509Certificate(replaced.cert).checkIssued(new X509Certificate(replaced.ca))).toBe(true);
  });

  it('serves https that a client trusting only the CA accepts, by name and by address', async () => {
    const material = await ensureTlsMaterial(dir, []);
    const server = await serve(material.key, material.cert);
    try {
      expect(await get(server, { hostname: '127.0.0.1', ca: material.ca })).toBe('ok');
      expect(await get(server, { hostname: '127.0.0.1', ca: material.ca, servername: 'localhost' })).toBe('ok');
      await expect(get(server, { hostname: '127.0.0.1' })).rejects.toThrow(/certificate/);
      const stranger = createEphemeralTlsMaterial([]);
      await expect(get(server, { hostname: '127.0.0.1', ca: stranger.ca })).rejects.toThrow(/certificate/);
      await expect(get(server, { hostname: '127.0.0.1', ca: material.ca, servername: 'elsewhere.test' })).rejects.toThrow(
        /altnames/,
      );
    } finally {
      server.close();
    }
  });
});

describe('createEphemeralTlsMaterial', () => {
  it('gives an in-memory CA and a server certificate for the hosts that a client trusting the CA accepts', async () => {
    const material = createEphemeralTlsMaterial(['agent.example.test']);
    expect(sans(material.cert)).toContain('DNS:agent.example.test');
    const server = await serve(material.key, material.cert);
    try {
      expect(await get(server, { hostname: '127.0.0.1', ca: material.ca, servername: 'agent.example.test' })).toBe('ok');
    } finally {
      server.close();
    }
  });
});
