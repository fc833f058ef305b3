import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import {
  certificateHosts,
  createCertificateAuthority,
  createServerCertificate,
  type KeyedCertificate,
} from './certificate.js';

const CA_DAYS = 3650;
const SERVER_DAYS = 365;
const RENEW_WITHIN_MS = 30 * 86_400_000;
/** Names every local client may use, whatever else the server is reachable as. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1'];
/** Bind-everything addresses are not names a client can connect to, so they never go into a certificate. */
const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** PEM material for an https server and its clients, and where it lives on disk. */
export interface TlsMaterial {
  /** The CA certificate clients trust. */
  caFile: string;
  certFile: string;
  keyFile: string;
  ca: string;
  cert: string;
  key: string;
}

/** The same material without files: for test servers and the agent stub. */
export interface EphemeralTlsMaterial {
  ca: string;
  cert: string;
  key: string;
}

/** Lowercase names, IPv6 without brackets in its canonical compressed form, so sets compare reliably. */
function normalizeHost(host: string): string {
  const bare = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) === 6 ? new URL(`http://[${bare}]`).hostname.slice(1, -1) : bare;
}

/** The hosts a server certificate names: the given ones first (the first becomes the CN), then loopback. */
function serverHosts(hosts: readonly string[]): string[] {
  const all = [...hosts, ...LOOPBACK_HOSTS].map(normalizeHost).filter((host) => host !== '' && !UNSPECIFIED.has(host));
  return [...new Set(all)];
}

function sameHosts(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a.map(normalizeHost));
  const right = new Set(b);
  return left.size === right.size && [...left].every((host) => right.has(host));
}

function validBeyondRenewal(certificate: X509Certificate): boolean {
  return new Date(certificate.validTo).getTime() - Date.now() > RENEW_WITHIN_MS;
}

function usableAuthority(ca: KeyedCertificate): boolean {
  const certificate = new X509Certificate(ca.cert);
  return certificate.ca && certificate.checkPrivateKey(createPrivateKey(ca.key)) && validBeyondRenewal(certificate);
}

function usableServer(server: KeyedCertificate, ca: KeyedCertificate, hosts: readonly string[]): boolean {
  const certificate = new X509Certificate(server.cert);
  const authority = new X509Certificate(ca.cert);
  return (
    certificate.checkIssued(authority) &&
    certificate.verify(authority.publicKey) &&
    certificate.checkPrivateKey(createPrivateKey(server.key)) &&
    validBeyondRenewal(certificate) &&
    sameHosts(certificateHosts(server.cert), hosts)
  );
}

/** True when the pair parses and passes `check`; a missing, corrupt or mismatched pair is simply replaced. */
function passes(pair: KeyedCertificate | null, check: (pair: KeyedCertificate) => boolean): pair is KeyedCertificate {
  if (!pair) return false;
  try {
    return check(pair);
  } catch {
    return false;
  }
}

async function readPair(certFile: string, keyFile: string): Promise<KeyedCertificate | null> {
  try {
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Writes through a temporary file and a rename, so a reader never sees half a PEM. */
async function writeAtomically(file: string, content: string, mode: number): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, file);
}

/** Writes a new pair, the key first: a crash between the two writes leaves a mismatched pair, which the next start replaces. */
async function issue(certFile: string, keyFile: string, create: () => KeyedCertificate): Promise<KeyedCertificate> {
  const pair = create();
  await writeAtomically(keyFile, pair.key, 0o600);
  await writeAtomically(certFile, pair.cert, 0o644);
  return pair;
}

/**
 * The CA and server certificate an https server in `dir` uses. The CA (10 years) is created once and kept; the
 * server certificate (1 year) is re-issued when the host set differs from the one it names, when it is within
 * 30 days of expiry, or when the CA changed. `localhost`, `127.0.0.1` and `::1` are always named.
 * Key files are written with mode 0600.
 */
export async function ensureTlsMaterial(dir: string, hosts: string[]): Promise<TlsMaterial> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const caFile = join(dir, 'ca.pem');
  const caKeyFile = join(dir, 'ca-key.pem');
  const certFile = join(dir, 'server.pem');
  const keyFile = join(dir, 'server-key.pem');
  const wanted = serverHosts(hosts);

  const storedCa = await readPair(caFile, caKeyFile);
  const ca = passes(storedCa, usableAuthority)
    ? storedCa
    : await issue(caFile, caKeyFile, () => createCertificateAuthority('meeting-memory local CA', CA_DAYS));
  const storedServer = await readPair(certFile, keyFile);
  const server = passes(storedServer, (pair) => usableServer(pair, ca, wanted))
    ? storedServer
    : await issue(certFile, keyFile, () => createServerCertificate(ca, wanted, SERVER_DAYS));
  return { caFile, certFile, keyFile, ca: ca.cert, cert: server.cert, key: server.key };
}

/** A fresh CA and a server certificate for `hosts` (plus loopback), in memory only, valid for `days`. */
export function createEphemeralTlsMaterial(hosts: string[], days = 30): EphemeralTlsMaterial {
  const ca = createCertificateAuthority('meeting-memory ephemeral CA', days);
  const server = createServerCertificate(ca, serverHosts(hosts), days);
  return { ca: ca.cert, cert: server.cert, key: server.key };
}
