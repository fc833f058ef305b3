import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureTlsMaterial } from '../../tls/index.js';
import { createBuiltinIssuer } from '../auth/issuer.js';
import { createTokenVerifier } from '../auth/verifier.js';
import { provisionDemo } from '../demo/index.js';
import { openPostgresStore, openSqliteStore } from '../store/index.js';
import type { Store } from '../store/store.js';
import { startSearch, type EmbeddingsConfig } from '../search/search-runtime.js';
import type { SearchMode } from '../search/search-service.js';
import { buildApp } from './app.js';
import { DATABASE_FILE, defaultDataDir } from './data-dir.js';
import type { RateLimitOptions } from './rate-limit-auth.js';
import { sharedRateLimits } from './rate-limit-postgres.js';

export const DEFAULT_AUDIENCE = 'api://meeting-memory';

export interface CoreOptions {
  port: number;
  host: string;
  dataDir?: string;
  demo: boolean;
  tls: { mode: 'generate' } | { mode: 'files'; certFile: string; keyFile: string } | { mode: 'off' };
  /** The origin clients use; tokens name it as their issuer. Default: from the scheme, host and port. */
  publicUrl?: string;
  issuer: { mode: 'builtin'; audience?: string } | { mode: 'entra'; audience: string; allowedTenants: string[] };
  /** Rate limits and their clock; default the contract's (tests lower them or move the clock). */
  rateLimit?: RateLimitOptions;
  /** Agent backends may be on loopback addresses, over plain http too (a backend on this host, in development). */
  allowHttpLoopbackBackends?: boolean;
  /** Agent backends may be on private, link-local and other non-public addresses (a backend inside the network). */
  allowPrivateBackends?: boolean;
  /** PEM of a CA whose certificates agent backends are trusted with, besides the system's (`--backend-ca-file`). */
  backendCa?: string;
  /**
   * PostgreSQL instead of the data dir's SQLite file (`--database-url`), so several replicas share the memory, the
   * signing keys, the rate limits and the audit chains; `migrateUrl` is the schema owner's connection.
   */
  database?: { url: string; migrateUrl?: string };
  /** An OpenAI-compatible embeddings endpoint (`--embeddings-*`): search becomes hybrid. */
  embeddings?: EmbeddingsConfig;
}

export interface RunningCore {
  origin: string;
  baseUrl: string;
  mcpUrl: string;
  dataDir: string;
  caFile: string | null;
  demoCredentialsFile: string | null;
  store: Store;
  /** Which mode search runs in, and the line that says so and why. */
  search: { mode: SearchMode; describe: string };
  close(): Promise<void>;
}

async function loadTls(options: CoreOptions, dataDir: string) {
  if (options.tls.mode === 'off') return null;
  if (options.tls.mode === 'files') {
    const [cert, key] = await Promise.all([readFile(options.tls.certFile, 'utf8'), readFile(options.tls.keyFile, 'utf8')]);
    return { cert, key, caFile: null };
  }
  const material = await ensureTlsMaterial(join(dataDir, 'tls'), [options.host]);
  return { cert: material.cert, key: material.key, caFile: material.caFile };
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** The engine the options choose, with rate limits every replica shares when the engine is PostgreSQL. */
async function openStore(options: CoreOptions, dataDir: string): Promise<{ store: Store; rateLimit?: RateLimitOptions }> {
  if (!options.database) return { store: await openSqliteStore(join(dataDir, DATABASE_FILE)), rateLimit: options.rateLimit };
  const store = await openPostgresStore(options.database);
  if (store.capabilities.vectorMissing) {
    process.stderr.write(`${store.capabilities.vectorMissing} (pgvector): search runs keyword-only.\n`);
  }
  return { store, rateLimit: sharedRateLimits(store.db.pool, options.rateLimit) };
}

/**
 * Starts the core: opens the store in the data dir, prepares TLS, the token issuer and verifier, provisions the
 * demo when asked, and listens. Resolves once it accepts connections.
 */
export async function startCore(options: CoreOptions): Promise<RunningCore> {
  const dataDir = options.dataDir ?? defaultDataDir();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const { store, rateLimit } = await openStore(options, dataDir);
  const search = await startSearch(store, options.embeddings);
  const tls = await loadTls(options, dataDir);
  // The origin is known only once listening (port 0 picks one), and the issuer names it in every token.
  let origin = options.publicUrl?.replace(/\/+$/, '') ?? '';
  const publicOrigin = () => origin;
  const audience = options.issuer.audience ?? DEFAULT_AUDIENCE;

  const issuer = options.issuer.mode === 'builtin' ? await createBuiltinIssuer({ store, publicBaseUrl: publicOrigin, audience }) : null;
  const verifier =
    options.issuer.mode === 'builtin'
      ? createTokenVerifier({ mode: 'builtin', issuerBaseUrl: publicOrigin, audience, keys: issuer!.jwks })
      : createTokenVerifier({ mode: 'entra', audience, allowedTenants: options.issuer.allowedTenants });

  const { app } = await buildApp({
    store,
    https: tls ? { cert: tls.cert, key: tls.key } : undefined,
    authenticate: (header) => verifier.verify(header),
    plugins: issuer ? [(instance) => issuer.register(instance)] : [],
    health: () => ({ issuer: options.issuer.mode, search: search.service.mode }),
    search: search.service,
    mcpAllowedOrigins: () => [origin],
    rateLimit,
    admin: { tokenEndpoints: issuer ?? undefined, scope: `${audience}/.default` },
    backends: {
      allowLoopback: options.allowHttpLoopbackBackends,
      allowPrivate: options.allowPrivateBackends,
      extraCa: options.backendCa,
    },
  });
  await app.listen({ port: options.port, host: options.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  if (!origin) origin = `${tls ? 'https' : 'http'}://${urlHost(options.host)}:${port}`;

  const baseUrl = `${origin}/v1`;
  const mcpUrl = `${baseUrl}/mcp`;
  let demoCredentialsFile: string | null = null;
  if (options.demo) {
    demoCredentialsFile = join(dataDir, 'demo-credentials.json');
    await provisionDemo(store, {
      baseUrl,
      mcpUrl,
      authority: (tenantId) => `${origin}/${tenantId}`,
      tokenUrl: (tenantId) => `${origin}/${tenantId}/oauth2/v2.0/token`,
      audience,
      caFile: tls?.caFile ?? null,
      credentialsFile: demoCredentialsFile,
    });
  }

  return {
    origin,
    baseUrl,
    mcpUrl,
    dataDir,
    caFile: tls?.caFile ?? null,
    demoCredentialsFile,
    store,
    search: { mode: search.service.mode, describe: search.describe },
    async close() {
      await app.close();
      await search.close();
      await store.close();
    },
  };
}

/** Runs the core in the foreground until SIGINT or SIGTERM, then closes connections and the store cleanly. */
export async function runCoreUntilSignalled(options: CoreOptions, output: { json: boolean }): Promise<void> {
  const core = await startCore(options);
  const ready = {
    base_url: core.baseUrl,
    mcp_url: core.mcpUrl,
    data_dir: core.dataDir,
    ca_file: core.caFile,
    demo_credentials: core.demoCredentialsFile,
    search: core.search.mode,
  };
  process.stderr.write(`${core.search.describe}\n`);
  if (output.json) process.stdout.write(`${JSON.stringify(ready)}\n`);
  else {
    process.stderr.write(`meeting-memory core listening at ${core.baseUrl}\n`);
    if (core.demoCredentialsFile) {
      process.stderr.write(`demo credentials: ${core.demoCredentialsFile}\n`);
      process.stderr.write(`sign in as a demo principal: memory login --demo --data-dir ${core.dataDir}\n`);
    }
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      core.close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
