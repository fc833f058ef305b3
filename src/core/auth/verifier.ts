import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import type { Caller } from '../access/index.js';
import { HttpProblem, unauthorized } from '../server/problem.js';
import { baseUrlGetter, type BaseUrl } from './issuer.js';

/** The verified identity behind a request: the tenant always comes from here. */
export type VerifiedCaller = Caller;

export const ENTRA_JWKS_URL = 'https://login.microsoftonline.com/common/discovery/v2.0/keys';

export type TokenVerifierConfig =
  | {
      mode: 'builtin';
      /** The built-in issuer's public origin; a function when it is known only once the server listens. */
      issuerBaseUrl: BaseUrl;
      audience: string;
      /** The built-in issuer's public keys, in process: no network. */
      keys: JSONWebKeySet;
    }
  | {
      mode: 'entra';
      /** The `aud` of the API's v2 tokens (its application id, or its id URI if the app registration sets that). */
      audience: string;
      /** Tenant ids whose tokens are accepted; any other tenant answers 401. */
      allowedTenants: string[];
      jwksUrl?: string;
      issuerFor?: (tenantId: string) => string;
    };

export interface TokenVerifier {
  /** Verifies an `Authorization` header value; throws a 401 HttpProblem for anything but a usable bearer token. */
  verify(authorization: string | undefined): Promise<VerifiedCaller>;
}

/** Signatures only from asymmetric keys: `none` and HMAC (e.g. HS256 keyed with a public key) never pass. */
const ALGORITHMS = ['RS256', 'ES256'];
const CLOCK_TOLERANCE_SECONDS = 60;
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+) *$/i;

interface Policy {
  keys: JWTVerifyGetKey;
  audience: string;
  issuerFor(tenantId: string): string;
  tenantAllowed(tenantId: string): boolean;
}

function policyOf(config: TokenVerifierConfig): Policy {
  if (config.mode === 'builtin') {
    const baseUrl = baseUrlGetter(config.issuerBaseUrl);
    return {
      keys: createLocalJWKSet(config.keys),
      audience: config.audience,
      issuerFor: (tenantId) => `${baseUrl()}/${tenantId}/v2.0`,
      tenantAllowed: () => true,
    };
  }
  const allowed = new Set(config.allowedTenants.map((tenantId) => tenantId.toLowerCase()));
  return {
    keys: createRemoteJWKSet(new URL(config.jwksUrl ?? ENTRA_JWKS_URL)),
    audience: config.audience,
    issuerFor: config.issuerFor ?? ((tenantId) => `https://login.microsoftonline.com/${tenantId}/v2.0`),
    tenantAllowed: (tenantId) => allowed.has(tenantId.toLowerCase()),
  };
}

/** Both issuers name their key; a token without `kid` is refused rather than tried against every key. */
function requireKid(keys: JWTVerifyGetKey): JWTVerifyGetKey {
  return (header, token) => {
    if (typeof header.kid !== 'string' || header.kid === '') throw unauthorized('The token names no signing key (kid).');
    return keys(header, token);
  };
}

/** A sentence a client can act on for each way jose refuses a token. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The token has expired.';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf' || error.claim === 'iat') return 'The token is not valid yet.';
    if (error.claim === 'aud') return 'The token was issued for another audience.';
    return `The token's ${error.claim} claim is not acceptable.`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return 'The token is signed with a key this service does not know.';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'The token is not signed with RS256 or ES256.';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'The token signature does not verify.';
  if (error instanceof errors.JWKSTimeout) return 'The token could not be checked: the signing keys did not load in time.';
  return 'The token is malformed.';
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function callerOf(payload: JWTPayload, policy: Policy): VerifiedCaller {
  const { tid, oid, azp, appid, roles } = payload;
  if (!nonEmptyString(tid) || !nonEmptyString(oid)) throw unauthorized('The token carries no usable oid and tid claims.');
  if (!policy.tenantAllowed(tid)) throw unauthorized('Tokens of this tenant are not accepted here.');
  if (payload.iss !== policy.issuerFor(tid)) throw unauthorized("The token's issuer is not trusted for its tenant.");
  const clientId = nonEmptyString(azp) ? azp : appid;
  if (!nonEmptyString(clientId)) throw unauthorized('The token names no client application (azp).');
  return {
    tenantId: tid,
    oid,
    clientId,
    roles: Array.isArray(roles) ? roles.filter((role): role is string => typeof role === 'string') : [],
  };
}

/**
 * A verifier for the issuer mode chosen at start. A token passes only when it is a compact JWS signed with RS256
 * or ES256 by a key of the issuer's JWKS (named by `kid`), has `exp` in the future and `nbf` (if any) in the past
 * (60 s tolerance), the configured audience, non-empty string `oid` and `tid`, an `iss` that is the issuer's for
 * that very `tid`, and (Entra) a tenant that is allowed. Every failure is a 401 with `WWW-Authenticate`.
 */
export function createTokenVerifier(config: TokenVerifierConfig): TokenVerifier {
  const policy = policyOf(config);
  const keys = requireKid(policy.keys);
  return {
    async verify(authorization) {
      if (!authorization) throw unauthorized('Send a bearer token: Authorization: Bearer <token>.');
      const token = BEARER.exec(authorization)?.[1];
      if (!token) throw unauthorized('The Authorization header does not carry a bearer token.');
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          algorithms: ALGORITHMS,
          audience: policy.audience,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        if (error instanceof HttpProblem) throw error;
        throw unauthorized(reasonOf(error));
      }
      return callerOf(payload, policy);
    },
  };
}
