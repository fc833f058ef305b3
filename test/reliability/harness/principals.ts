import { randomUUID } from 'node:crypto';
import type { Access } from '../../../src/contract/index.js';
import { generateSecret, hashSecret } from '../../../src/core/auth/secret-hash.js';
import type { Store } from '../../../src/core/store/store.js';
import { requestToken } from '../../helpers/core.js';

/** The scope the built-in issuer hands memory-API tokens for (the default audience's). */
export const MEMORY_SCOPE = 'api://meeting-memory/.default';

export interface TestPrincipal {
  tenantId: string;
  oid: string;
  clientId: string;
  secret: string;
  name: string;
}

/**
 * Registers a service principal with the given grants (an admin one, whose tokens carry the admin role, when asked)
 * straight in the store, as the admin surface would, and returns its secret. Used to give each suite enough principals that the per-principal rate limit never shapes
 * what a suite measures.
 */
export async function addPrincipal(
  store: Store,
  tenantId: string,
  name: string,
  grants: { deploymentId: string; access: Access }[],
  isAdmin = false,
): Promise<TestPrincipal> {
  const secret = generateSecret();
  const principal = await store.createPrincipal({
    tenantId,
    oid: randomUUID(),
    clientId: randomUUID(),
    displayName: name,
    secretHash: await hashSecret(secret),
    isAdmin,
  });
  for (const grant of grants) await store.setGrant(tenantId, principal.oid, grant.deploymentId, grant.access);
  return { tenantId, oid: principal.oid, clientId: principal.clientId, secret, name };
}

/** The built-in issuer's client-credentials endpoint of a tenant on a core at `origin`. */
export function tokenUrlOf(origin: string, tenantId: string): string {
  return `${origin}/${tenantId}/oauth2/v2.0/token`;
}

/** A fresh access token for a principal from the core at `origin`. */
export function tokenOf(origin: string, principal: TestPrincipal): Promise<string> {
  return requestToken(tokenUrlOf(origin, principal.tenantId), principal.clientId, principal.secret, MEMORY_SCOPE);
}
