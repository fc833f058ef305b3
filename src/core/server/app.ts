import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { ADMIN_OPERATIONS } from '../../contract/admin-operations.js';
import { OPERATIONS } from '../../contract/index.js';
import { packageVersion } from '../../contract/package-info.js';
import { createAdminExecutor, requireAdmin } from '../admin/admin-handlers.js';
import { createBackendInvoker, type BackendInvokerOptions, type BackendNetworkPolicy } from '../backend/index.js';
import { memorySearchTool } from '../backend/memory-tool.js';
import type { TokenEndpoints } from '../admin/views.js';
import { registerAuditLog } from '../audit/index.js';
import { createSearchService, type SearchService } from '../search/search-service.js';
import type { Store } from '../store/store.js';
import { CursorCodec } from './cursor.js';
import { clientErrorHandler, registerErrorHandling, routerRefusalHandler } from './error-handler.js';
import { registerMcpHttp } from './mcp-http.js';
import { buildOpenApiDocument } from './openapi.js';
import { createOperationExecutor, type OperationExecutor } from './operation-handlers.js';
import { registerProblemPages } from './problem-pages.js';
import { rateLimitedAuthenticator, registerRateLimitHeaders, type RateLimitOptions } from './rate-limit-auth.js';
import { registerRestRoutes, type Authenticator } from './rest-routes.js';
import { registerVersionHeaders } from './versioning.js';

/** Bodies over this are refused with 413 before they are parsed. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface AppOptions {
  store: Store;
  authenticate: Authenticator;
  /** TLS material; without it the app speaks plain HTTP (behind a proxy, or in tests). */
  https?: { key: string; cert: string };
  /** Extra routes mounted at the root (the built-in issuer). */
  plugins?: ((app: FastifyInstance) => void | Promise<void>)[];
  /** What the health document reports besides `status`. */
  health?: () => Record<string, unknown>;
  /** How searchMemory ranks; by default the store's keyword search (`startSearch` makes it hybrid). */
  search?: SearchService;
  /** Browser origins allowed to call `/v1/mcp` besides the listening address: the public origin, any configured. */
  mcpAllowedOrigins?: () => readonly string[];
  /** Limits and clock of the rate limiter; by default the contract's 600 accepted calls per principal per minute. */
  rateLimit?: RateLimitOptions;
  /** The admin surface's settings; by default no token endpoints and https-only agent backends. */
  admin?: {
    /** The built-in issuer, whose token URL issued credentials name. */
    tokenEndpoints?: TokenEndpoints;
    /** The scope principals request; default `api://meeting-memory/.default`. */
    scope?: string;
  };
  /**
   * Where agent backends may be and whom to trust: by default public https endpoints with a publicly trusted
   * certificate. `log` receives one line per invocation (default: JSON on stderr).
   */
  backends?: Partial<BackendNetworkPolicy> & Pick<BackendInvokerOptions, 'extraCa' | 'resolve' | 'log'>;
}

export interface CoreApp {
  app: FastifyInstance;
  execute: OperationExecutor;
}

async function cursorCodec(store: Store): Promise<CursorCodec> {
  const secret = await store.initSetting('cursor.secret', CursorCodec.newSecret());
  return new CursorCodec(Buffer.from(secret, 'base64url'));
}

function serverOptions(options: AppOptions): FastifyServerOptions & { https?: { key: string; cert: string } } {
  return {
    bodyLimit: BODY_LIMIT_BYTES,
    // Ids longer than the router's default of 100 must reach validation and get a 400, not a bare 414.
    routerOptions: { maxParamLength: 4096 },
    frameworkErrors: routerRefusalHandler(options.store),
    clientErrorHandler: clientErrorHandler(options.store),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    logger: false,
    ...(options.https ? { https: options.https } : {}),
  };
}

/**
 * The core's HTTP application: the v1 REST surface generated from the contract table, problem pages, health and
 * the OpenAPI document. Every response carries its request id, the audit log's id for the call.
 */
export async function buildApp(options: AppOptions): Promise<CoreApp> {
  const app = Fastify(serverOptions(options)) as unknown as FastifyInstance;
  const cursors = await cursorCodec(options.store);
  const policy = { allowLoopback: options.backends?.allowLoopback === true, allowPrivate: options.backends?.allowPrivate === true };
  const search = options.search ?? createSearchService({ store: options.store });
  const invoker = createBackendInvoker({ ...options.backends, policy, store: options.store, search: memorySearchTool(search) });
  app.addHook('onClose', () => invoker.close());
  const execute = createOperationExecutor({ store: options.store, cursors, search });
  const executeAdmin = createAdminExecutor({
    store: options.store,
    cursors,
    tokenEndpoints: options.admin?.tokenEndpoints,
    scope: options.admin?.scope ?? 'api://meeting-memory/.default',
    backends: policy,
    invoker,
    search,
  });
  const version = packageVersion();
  // REST and MCP authenticate through the same limiter, so their calls count together.
  const authenticate = rateLimitedAuthenticator(options.authenticate, options.rateLimit);

  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', String(request.id));
  });
  registerVersionHeaders(app, options.store);
  registerRateLimitHeaders(app);
  registerAuditLog(app, options.store);
  registerErrorHandling(app);
  registerProblemPages(app);
  registerRestRoutes(app, { authenticate, operations: OPERATIONS, execute });
  registerRestRoutes(app, { authenticate, operations: ADMIN_OPERATIONS, execute: executeAdmin, admit: requireAdmin });
  registerMcpHttp(app, { authenticate, execute, allowedOrigins: options.mcpAllowedOrigins });

  const openapi = buildOpenApiDocument(version);
  app.get('/v1/openapi.json', async () => openapi);
  app.get('/v1/health', async () => ({ status: 'ok', version, store: options.store.engine, ...options.health?.() }));
  for (const plugin of options.plugins ?? []) await plugin(app);
  return { app, execute };
}
