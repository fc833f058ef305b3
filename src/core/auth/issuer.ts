import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SignJWT, type JSONWebKeySet } from 'jose';
import type { Principal, Store } from '../store/store.js';
import { generateSecret, hashSecret, verifySecret } from './secret-hash.js';
import { loadSigningKey, SIGNING_ALGORITHM, type SigningKey } from './signing-key.js';

/** The app role an admin principal's tokens carry, as an Entra app role would appear in `roles`. */
export const ADMIN_ROLE = 'Memory.Admin';
const TOKEN_LIFETIME_SECONDS = 3600;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FORM = 'application/x-www-form-urlencoded';

/** An origin, or a function giving it when it is known only once the server listens (port 0). */
export type BaseUrl = string | (() => string);

/** Reads the origin when called, without a trailing slash. */
export function baseUrlGetter(option: BaseUrl): () => string {
  return () => (typeof option === 'function' ? option() : option).replace(/\/+$/, '');
}

export interface BuiltinIssuerOptions {
  store: Store;
  /**
   * The https origin clients reach the core at (e.g. `https://127.0.0.1:8787`), read per request so a server
   * listening on port 0 can supply it once it knows its port. MSAL refuses an issuer on another origin.
   */
  publicBaseUrl: BaseUrl;
  /** The API's identifier: the `aud` of every token; clients ask for the scope `${audience}/.default`. */
  audience: string;
}

/** The self-hosting identity provider: Entra-shaped client-credentials tokens for the store's principals. */
export interface BuiltinIssuer {
  readonly audience: string;
  /** The one scope clients request. */
  readonly scope: string;
  /** The public keys tokens are signed with, for a verifier in the same process (no network). */
  readonly jwks: JSONWebKeySet;
  /** The `iss` of a tenant's tokens: `${publicBaseUrl}/${tenantId}/v2.0`. */
  issuerFor(tenantId: string): string;
  /** The MSAL authority of a tenant: `${publicBaseUrl}/${tenantId}`. */
  authorityFor(tenantId: string): string;
  tokenUrlFor(tenantId: string): string;
  /** A signed access token for the principal, as the token endpoint hands it out. */
  issueToken(principal: Principal): Promise<string>;
  /** Mounts the token, OpenID configuration and JWKS routes; call it on the root app, not under /v1. */
  register(app: FastifyInstance): Promise<void>;
}

/** An OAuth 2.0 error response (RFC 6749 section 5.2), answered with the fields Entra also sends. */
class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401 | 500,
    readonly code: string,
    description: string,
  ) {
    super(description);
  }
}

const unknownTenant = () => new OAuthError(400, 'invalid_request', 'The tenant in the path is not served by this issuer.');

/** MSAL sends its correlation id as the `client-request-id` query parameter; Entra echoes it in errors. */
function correlationIdOf(request: FastifyRequest): string {
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.['client-request-id'];
  const fromHeader = request.headers['client-request-id'];
  const given = typeof fromQuery === 'string' ? fromQuery : fromHeader;
  return typeof given === 'string' && UUID.test(given) ? given : randomUUID();
}

function sendOAuthError(error: OAuthError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply
    .code(error.status)
    .header('cache-control', 'no-store')
    .send({
      error: error.code,
      error_description: error.message,
      timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      trace_id: String(request.id),
      correlation_id: correlationIdOf(request),
    });
}

/** Any failure inside the issuer's routes answers OAuth-shaped JSON, never the memory API's problem documents. */
function toOAuthError(error: FastifyError | OAuthError): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error.statusCode === 415) return new OAuthError(400, 'invalid_request', `The token request must be sent as ${FORM}.`);
  if (error.statusCode !== undefined && error.statusCode < 500) return new OAuthError(400, 'invalid_request', error.message);
  return new OAuthError(500, 'server_error', 'Something went wrong on our side.');
}

/** Form fields; a field sent twice is refused, as RFC 6749 section 3.2 asks. No prototype, so any name is data. */
function parseForm(body: string): Record<string, string> {
  const form = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(form, name)) throw new OAuthError(400, 'invalid_request', `The parameter '${name}' was sent more than once.`);
    form[name] = value;
  }
  return form;
}

function required(form: Record<string, string>, name: string): string {
  const value = form[name];
  if (!value) throw new OAuthError(400, 'invalid_request', `The request body must contain the parameter '${name}'.`);
  return value;
}

/**
 * Creates the built-in issuer. Its token endpoint speaks the client-credentials grant exactly where and how Entra
 * ID does (`POST /{tenant}/oauth2/v2.0/token`, form-encoded, OAuth error JSON), so `@azure/msal-node`'s
 * ConfidentialClientApplication works against it unchanged. Client secrets are checked against their scrypt
 * hashes; the signing key (ES256) is kept in the store and shared by every replica.
 */
export async function createBuiltinIssuer(options: BuiltinIssuerOptions): Promise<BuiltinIssuer> {
  const { store, audience } = options;
  const baseUrl = baseUrlGetter(options.publicBaseUrl);
  const scope = `${audience}/.default`;
  const signingKey = await loadSigningKey(store);
  // Checked when the client is unknown, so a miss takes as long as a wrong secret and does not reveal the client.
  const decoyHash = await hashSecret(generateSecret());

  const issuer: BuiltinIssuer = {
    audience,
    scope,
    jwks: { keys: [signingKey.publicJwk] },
    issuerFor: (tenantId) => `${baseUrl()}/${tenantId}/v2.0`,
    authorityFor: (tenantId) => `${baseUrl()}/${tenantId}`,
    tokenUrlFor: (tenantId) => `${baseUrl()}/${tenantId}/oauth2/v2.0/token`,
    issueToken: (principal) => signToken(signingKey, issuer.issuerFor(principal.tenantId), audience, principal),
    register: (app) => registerRoutes(app, { store, issuer, decoyHash }),
  };
  return issuer;
}

async function signToken(key: SigningKey, iss: string, audience: string, principal: Principal): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    oid: principal.oid,
    tid: principal.tenantId,
    azp: principal.clientId,
    appid: principal.clientId,
    roles: principal.isAdmin ? [ADMIN_ROLE] : [],
    ver: '2.0',
    idtyp: 'app',
  })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.kid, typ: 'JWT' })
    .setIssuer(iss)
    .setAudience(audience)
    .setSubject(principal.oid)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + TOKEN_LIFETIME_SECONDS)
    .sign(key.privateKey);
}

interface RouteDeps {
  store: Store;
  issuer: BuiltinIssuer;
  decoyHash: string;
}

/** The tenant named in the path, if the store has it: tenant ids are lowercase UUIDs, anything else is unknown. */
async function knownTenant(store: Store, segment: string): Promise<string> {
  const tenantId = segment.toLowerCase();
  if (!UUID.test(tenantId) || !(await store.getTenant(tenantId))) throw unknownTenant();
  return tenantId;
}

async function authenticateClient(deps: RouteDeps, tenantId: string, clientId: string, secret: string | undefined) {
  if (!secret) {
    throw new OAuthError(401, 'invalid_client', "The request body must contain the parameter 'client_secret'.");
  }
  const principal = await deps.store.getPrincipalByClientId(tenantId, clientId);
  const matches = await verifySecret(secret, principal?.secretHash ?? deps.decoyHash);
  if (!principal || !matches) {
    throw new OAuthError(401, 'invalid_client', 'The client is unknown in this tenant or its secret is wrong.');
  }
  return principal;
}

async function tokenResponse(deps: RouteDeps, request: FastifyRequest<{ Params: { tenant: string } }>) {
  const tenantId = await knownTenant(deps.store, request.params.tenant);
  const form = (request.body ?? {}) as Record<string, string>;
  const grantType = required(form, 'grant_type');
  if (grantType !== 'client_credentials') {
    throw new OAuthError(400, 'unsupported_grant_type', 'This issuer offers the client_credentials grant only.');
  }
  const clientId = required(form, 'client_id');
  if (required(form, 'scope').split(' ').filter(Boolean).join(' ') !== deps.issuer.scope) {
    throw new OAuthError(400, 'invalid_scope', `The only scope this issuer grants is '${deps.issuer.scope}'.`);
  }
  const principal = await authenticateClient(deps, tenantId, clientId, form.client_secret);
  return {
    token_type: 'Bearer',
    expires_in: TOKEN_LIFETIME_SECONDS,
    ext_expires_in: TOKEN_LIFETIME_SECONDS,
    access_token: await deps.issuer.issueToken(principal),
  };
}

function openIdConfiguration(issuer: BuiltinIssuer, tenantId: string) {
  const authority = issuer.authorityFor(tenantId);
  return {
    issuer: issuer.issuerFor(tenantId),
    token_endpoint: issuer.tokenUrlFor(tenantId),
    jwks_uri: `${authority}/discovery/v2.0/keys`,
    // Not served: only the client-credentials grant exists, but MSAL requires the field in the document.
    authorization_endpoint: `${authority}/oauth2/v2.0/authorize`,
    token_endpoint_auth_methods_supported: ['client_secret_post'],
    grant_types_supported: ['client_credentials'],
    response_types_supported: ['token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALGORITHM],
    scopes_supported: [issuer.scope],
    claims_supported: ['iss', 'aud', 'sub', 'oid', 'tid', 'azp', 'appid', 'roles', 'iat', 'nbf', 'exp', 'ver', 'idtyp'],
  };
}

async function registerRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  // Encapsulated: the form parser and the OAuth error shape stay inside the issuer's routes.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseForm(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
    scope.setErrorHandler((error: FastifyError | OAuthError, request, reply) => {
      const answer = toOAuthError(error);
      if (answer.status === 500) request.log.error({ err: error }, 'token issuer failed');
      return sendOAuthError(answer, request, reply);
    });

    scope.post<{ Params: { tenant: string } }>('/:tenant/oauth2/v2.0/token', async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return tokenResponse(deps, request);
    });
    scope.get<{ Params: { tenant: string } }>('/:tenant/v2.0/.well-known/openid-configuration', async (request) =>
      openIdConfiguration(deps.issuer, await knownTenant(deps.store, request.params.tenant)),
    );
    scope.get<{ Params: { tenant: string } }>('/:tenant/discovery/v2.0/keys', async (request) => {
      if (request.params.tenant !== 'common') await knownTenant(deps.store, request.params.tenant);
      return deps.issuer.jwks;
    });
  });
}
