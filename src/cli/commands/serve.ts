import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { CliError, usageError } from '../errors.js';
import { registerServeInit } from './serve-init.js';

interface ServeFlags {
  rateLimit?: string;
  port: string;
  host: string;
  dataDir?: string;
  demo?: boolean;
  json?: boolean;
  tls: boolean;
  tlsCert?: string;
  tlsKey?: string;
  publicUrl?: string;
  issuer: 'builtin' | 'entra';
  audience?: string;
  allowedTenants?: string;
  allowHttpLoopbackBackends?: boolean;
  allowPrivateBackends?: boolean;
  backendCaFile?: string;
  databaseUrl?: string;
  databaseMigrateUrl?: string;
  embeddingsUrl?: string;
  embeddingsModel?: string;
  embeddingsKeyRef?: string;
  embeddingsDimensions?: string;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`--port must be 0..65535, not ${value}`);
  return port;
}

function tlsMode(flags: ServeFlags) {
  if (!flags.tls) return { mode: 'off' as const };
  if (flags.tlsCert || flags.tlsKey) {
    if (!flags.tlsCert || !flags.tlsKey) throw usageError('--tls-cert and --tls-key go together');
    return { mode: 'files' as const, certFile: flags.tlsCert, keyFile: flags.tlsKey };
  }
  return { mode: 'generate' as const };
}

function issuerMode(flags: ServeFlags) {
  if (flags.issuer === 'builtin') return { mode: 'builtin' as const, audience: flags.audience };
  if (!flags.audience || !flags.allowedTenants) {
    throw usageError('--issuer entra needs --audience and --allowed-tenants', 'pass the app id URI and the tenant ids');
  }
  return {
    mode: 'entra' as const,
    audience: flags.audience,
    allowedTenants: flags.allowedTenants.split(',').map((tenant) => tenant.trim()).filter(Boolean),
  };
}

async function readBackendCa(file: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (error) {
    throw usageError(`cannot read --backend-ca-file ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw usageError(`--backend-ca-file ${file} holds no PEM certificate`, "pass the CA that issued the backend's certificate, e.g. the agent stub's ca.pem");
  }
  return pem;
}

function database(flags: ServeFlags) {
  if (!flags.databaseUrl) {
    if (flags.databaseMigrateUrl) throw usageError('--database-migrate-url needs --database-url');
    return undefined;
  }
  for (const url of [flags.databaseUrl, flags.databaseMigrateUrl]) {
    if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) {
      throw usageError('--database-url and --database-migrate-url take postgres:// URLs', 'e.g. postgres://memory_app@db:5432/memory');
    }
  }
  return { url: flags.databaseUrl, migrateUrl: flags.databaseMigrateUrl };
}

/** The embedding provider of hybrid search, or undefined (keyword-only) when no URL is given. */
function embeddings(flags: ServeFlags) {
  const { embeddingsUrl: url, embeddingsModel: model, embeddingsKeyRef: keyRef, embeddingsDimensions } = flags;
  if (!url) {
    if (model || keyRef || embeddingsDimensions) throw usageError('--embeddings-model, --embeddings-key-ref and --embeddings-dimensions need --embeddings-url');
    return undefined;
  }
  if (!/^https?:\/\//.test(url)) throw usageError(`--embeddings-url takes an http(s) URL, not ${url}`, 'e.g. https://api.openai.com/v1');
  if (!model) throw usageError('--embeddings-url needs --embeddings-model', 'e.g. --embeddings-model text-embedding-3-small');
  if (keyRef !== undefined && !/^(env|file|keychain):.+/.test(keyRef)) {
    throw usageError('--embeddings-key-ref takes a secret reference, never the key itself', 'e.g. env:OPENAI_API_KEY');
  }
  const dimensions = embeddingsDimensions === undefined ? undefined : Number(embeddingsDimensions);
  if (dimensions !== undefined && (!Number.isInteger(dimensions) || dimensions < 1)) {
    throw usageError(`--embeddings-dimensions takes a positive whole number, not ${embeddingsDimensions}`);
  }
  return { url, model, keyRef, dimensions };
}

function rateLimit(flags: ServeFlags) {
  if (flags.rateLimit === undefined) return undefined;
  const perPrincipal = Number(flags.rateLimit);
  if (!Number.isInteger(perPrincipal) || perPrincipal < 1) {
    throw usageError(`--rate-limit takes a whole number of calls per minute, not ${flags.rateLimit}`);
  }
  return { perPrincipal };
}

async function serve(flags: ServeFlags): Promise<void> {
  const options = {
    port: parsePort(flags.port),
    host: flags.host,
    dataDir: flags.dataDir,
    demo: Boolean(flags.demo),
    tls: tlsMode(flags),
    publicUrl: flags.publicUrl,
    issuer: issuerMode(flags),
    allowHttpLoopbackBackends: Boolean(flags.allowHttpLoopbackBackends),
    allowPrivateBackends: Boolean(flags.allowPrivateBackends),
    backendCa: flags.backendCaFile ? await readBackendCa(flags.backendCaFile) : undefined,
    database: database(flags),
    rateLimit: rateLimit(flags),
    embeddings: embeddings(flags),
  };
  const { runCoreUntilSignalled } = await import('../../core/server/serve.js');
  try {
    await runCoreUntilSignalled(options, { json: Boolean(flags.json) });
  } catch (error) {
    // A database the operator must fix (unreachable, wrong roles, newer schema) is not a bug in the core.
    if (error instanceof Error && error.name === 'DatabaseSetupError') {
      throw new CliError(error.message, { hint: (error as Error & { hint?: string }).hint });
    }
    throw error;
  }
}

/** `memory serve`: the self-hosted core. The server code loads only when this command runs. */
export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .enablePositionalOptions()
    .description('Run the self-hosted core: REST and MCP under /v1, the built-in token issuer, https by default')
    .option('--port <port>', 'port to listen on (0 picks a free one)', process.env.MEMORY_PORT ?? '8787')
    .option('--host <host>', 'address to bind', process.env.MEMORY_HOST ?? '127.0.0.1')
    .option('--data-dir <dir>', 'where the database, keys and certificates live (default: the OS data dir)', process.env.MEMORY_DATA_DIR)
    .option('--demo', 'provision a demo tenant with realistic memory and write <data-dir>/demo-credentials.json')
    .option('--json', 'print one JSON line with the addresses once ready')
    .option('--no-tls', 'speak plain http (behind a TLS-terminating proxy)')
    .option('--tls-cert <file>', 'PEM certificate to serve instead of the generated one')
    .option('--tls-key <file>', 'PEM private key of --tls-cert')
    .option('--public-url <url>', 'the https origin clients reach this core at (default: from --host and --port)')
    .addOption(new Option('--issuer <mode>', 'who issues tokens').choices(['builtin', 'entra']).default('builtin'))
    .option('--audience <aud>', 'token audience (default api://meeting-memory for the built-in issuer)')
    .option('--allowed-tenants <ids>', 'Entra ID tenant ids to accept, comma-separated (with --issuer entra)')
    .option('--allow-http-loopback-backends', 'agent backends may be on this host (loopback), over plain http too')
    .option('--allow-private-backends', 'agent backends may be on private, link-local and other non-public addresses')
    .option('--backend-ca-file <file>', "PEM CA to trust for agent backends' certificates, besides the system's")
    .option('--rate-limit <calls>', 'accepted calls per principal per minute, REST and MCP together (default 600, the v1 contract)', process.env.MEMORY_RATE_LIMIT)
    .option('--database-url <url>', 'PostgreSQL to share with other replicas instead of SQLite in the data dir', process.env.MEMORY_DATABASE_URL)
    .option('--database-migrate-url <url>', "the schema owner's PostgreSQL URL, when --database-url is the app role", process.env.MEMORY_DATABASE_MIGRATE_URL)
    .option('--embeddings-url <url>', 'OpenAI-compatible embeddings API (OpenAI, Azure OpenAI, Ollama, vLLM, TEI): hybrid search', process.env.MEMORY_EMBEDDINGS_URL)
    .option('--embeddings-model <name>', 'embedding model, e.g. text-embedding-3-small', process.env.MEMORY_EMBEDDINGS_MODEL)
    .option('--embeddings-key-ref <ref>', 'API key as a secret reference: env:NAME, file:/path or keychain:service/account', process.env.MEMORY_EMBEDDINGS_KEY_REF)
    .option('--embeddings-dimensions <n>', 'ask the model for vectors of this length (models that support it)', process.env.MEMORY_EMBEDDINGS_DIMENSIONS)
    .action(serve);
  registerServeInit(command);
}
