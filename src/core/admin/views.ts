import type {
  AgentBackendRecord,
  GrantRecord,
  IssuedCredential,
  PersonRecord,
  PrincipalRecord,
  TenantRecord,
  V1ScheduleRecord,
} from '../../contract/admin-records.js';
import type { V1Schedule } from '../server/versioning.js';
import type { AgentBackend, Grant, PersonName, Principal, Tenant } from '../store/store.js';

/** Where principals of the built-in issuer exchange their secret for a token; absent with Entra ID. */
export interface TokenEndpoints {
  tokenUrlFor(tenantId: string): string;
  authorityFor(tenantId: string): string;
}

export function tenantView(tenant: Tenant): TenantRecord {
  return { id: tenant.id, type: 'tenant', name: tenant.name, region: tenant.region, created_at: tenant.createdAt };
}

export function principalView(principal: Principal): PrincipalRecord {
  return {
    type: 'service_principal',
    client_id: principal.clientId,
    object_id: principal.oid,
    display_name: principal.displayName,
    is_admin: principal.isAdmin,
    created_at: principal.createdAt,
  };
}

/** A principal with the secret just issued for it (null for an external identity provider's principal). */
export function credentialView(
  principal: Principal,
  secret: string | null,
  endpoints: TokenEndpoints | undefined,
  scope: string,
): IssuedCredential {
  const builtin = secret !== null && endpoints !== undefined;
  return {
    ...principalView(principal),
    client_secret: secret,
    token_url: builtin ? endpoints.tokenUrlFor(principal.tenantId) : null,
    authority: builtin ? endpoints.authorityFor(principal.tenantId) : null,
    scope,
  };
}

export function grantView(grant: Grant): GrantRecord {
  return {
    type: 'grant',
    client_id: grant.clientId,
    object_id: grant.oid,
    deployment_id: grant.deploymentId,
    access: grant.access,
  };
}

export function backendView(deploymentId: string, backend: AgentBackend): AgentBackendRecord {
  return {
    type: 'agent_backend',
    deployment_id: deploymentId,
    url: backend.url,
    secret_ref: backend.secretRef,
    timeout_ms: backend.timeoutMs,
    fallback_line: backend.fallbackLine,
    system_prompt: backend.systemPrompt,
    updated_at: backend.updatedAt,
    updated_by: backend.updatedBy,
  };
}

export function personView(person: PersonName): PersonRecord {
  return { type: 'person', idp_id: person.idpId, display_name: person.displayName };
}

export function scheduleView(schedule: V1Schedule | null): V1ScheduleRecord {
  return {
    type: 'v1_schedule',
    deprecation_at: schedule?.deprecation_at ?? null,
    sunset_at: schedule?.sunset_at ?? null,
    set_at: schedule?.set_at ?? null,
  };
}
