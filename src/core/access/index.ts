import type { Access, Attribution, OperationAccess } from '../../contract/index.js';
import { forbidden } from '../server/problem.js';
import type { Store } from '../store/store.js';

/** Who is calling, as the verified token says: the tenant always comes from here, never from the request. */
export interface Caller {
  tenantId: string;
  oid: string;
  clientId: string;
  roles: string[];
}

/**
 * Checks the caller's grant on a deployment. No grant, no such deployment in the tenant, and a read grant on a
 * write all throw the same 403, so the answer never tells what a tenant has.
 */
export async function authorize(
  store: Store,
  caller: Caller,
  deploymentId: string,
  needed: OperationAccess,
): Promise<Access> {
  const access = await store.getAccess(caller.tenantId, caller.oid, deploymentId);
  if (access === null || (needed === 'write' && access !== 'read_write')) throw forbidden();
  return access;
}

/** The attribution of a change made through the API: the service principal, named as it is registered. */
export async function actorOf(store: Store, caller: Caller): Promise<Attribution> {
  const principal = await store.getPrincipalByClientId(caller.tenantId, caller.clientId);
  return { kind: 'service_principal', display_name: principal?.displayName ?? caller.clientId, idp_id: caller.oid };
}
