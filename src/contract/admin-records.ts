import { z } from 'zod';
import { TIMEOUT_BOUNDS_MS } from './agent-backend.js';
import { Access, Deployment, Meeting, Timestamp } from './records.js';

/** Where a tenant's data is hosted; the service serves the US and Canada only. */
export const Region = z.enum(['us', 'ca']);
export type Region = z.infer<typeof Region>;

/** The caller's own tenant, as its admins see it. */
export const TenantRecord = z.object({
  id: z.string(),
  type: z.literal('tenant'),
  name: z.string(),
  region: Region,
  created_at: Timestamp,
});
export type TenantRecord = z.infer<typeof TenantRecord>;

/** A deployment as an admin manages it: the memory API's Deployment without a caller's grant. */
export const AdminDeployment = Deployment.omit({ access: true });
export type AdminDeployment = z.infer<typeof AdminDeployment>;

/** A service principal of the tenant. Its secret is never part of it: it is shown once, when issued. */
export const PrincipalRecord = z.object({
  type: z.literal('service_principal'),
  client_id: z.string().describe('The client id it requests tokens with'),
  object_id: z.string().describe("The `oid` of its tokens; audit entries and grants name it"),
  display_name: z.string(),
  is_admin: z.boolean().describe('Its tokens carry the Memory.Admin app role'),
  created_at: Timestamp,
});
export type PrincipalRecord = z.infer<typeof PrincipalRecord>;

/**
 * A principal together with a client secret just issued for it, and where to exchange it for a token. The secret
 * is shown here once and stored only as a slow hash; a lost secret is replaced by rotating it.
 */
export const IssuedCredential = PrincipalRecord.extend({
  client_secret: z.string().nullable().describe('Shown once; null for a principal of an external identity provider'),
  token_url: z.string().nullable().describe("The built-in issuer's token endpoint for this tenant"),
  authority: z.string().nullable().describe('The MSAL authority of this tenant'),
  scope: z.string().describe('The scope to request with the client-credentials grant'),
});
export type IssuedCredential = z.infer<typeof IssuedCredential>;

/** One principal's access to one deployment. A grant on a further deployment is the cross-deployment opt-in. */
export const GrantRecord = z.object({
  type: z.literal('grant'),
  client_id: z.string(),
  object_id: z.string(),
  deployment_id: z.string(),
  access: Access,
});
export type GrantRecord = z.infer<typeof GrantRecord>;

/** The customer endpoint the teammate of one deployment asks what to say (the agent backend contract). */
export const AgentBackendRecord = z.object({
  type: z.literal('agent_backend'),
  deployment_id: z.string(),
  url: z.string(),
  secret_ref: z.string().describe('Where the shared secret is read from when a call is made, never the secret'),
  timeout_ms: z.number().int().min(TIMEOUT_BOUNDS_MS.min).max(TIMEOUT_BOUNDS_MS.max),
  fallback_line: z.string().describe('Spoken when the backend fails or misses its budget'),
  system_prompt: z.string().nullable().describe("Sent as `system`; null uses the service's default"),
  updated_at: Timestamp,
  updated_by: z.string().describe('Client id of the admin who registered it'),
});
export type AgentBackendRecord = z.infer<typeof AgentBackendRecord>;

/** How a speaker name in a transcript maps to an identity-provider object id. */
export const PersonRecord = z.object({
  type: z.literal('person'),
  idp_id: z.string(),
  display_name: z.string(),
});
export type PersonRecord = z.infer<typeof PersonRecord>;

/** What importing one meeting did: `created` is false when the same meeting was imported before. */
export const MeetingImportResult = z.object({
  type: z.literal('meeting_import'),
  created: z.boolean(),
  external_id: z.string(),
  meeting: Meeting,
});
export type MeetingImportResult = z.infer<typeof MeetingImportResult>;

/** One call on the API as the audit log keeps it. */
export const AuditEntryRecord = z.object({
  type: z.literal('audit_entry'),
  request_id: z.string().describe("The call's x-request-id and its problem document's request_id"),
  at: Timestamp,
  surface: z.enum(['rest', 'mcp']),
  tenant_id: z.string().nullable(),
  principal_oid: z.string().nullable(),
  remote_address: z.string().nullable().describe('Set only when the call carried no usable token'),
  operation: z.string(),
  kind: z.enum(['read', 'action']),
  deployment_id: z.string().nullable(),
  record_ids: z.array(z.string()),
  status: z.number().int(),
  duration_ms: z.number().int(),
});
export type AuditEntryRecord = z.infer<typeof AuditEntryRecord>;

/** The outcome of checking every link and entry of the hash-chained audit log. */
export const AuditVerificationRecord = z.object({
  ok: z.boolean(),
  checked: z.number().int(),
  first_bad_request_id: z.string().optional(),
  reason: z.enum(['content changed', 'link broken']).optional(),
  heads: z.object({ read: z.string(), action: z.string() }).describe('The newest hash of each chain'),
});

/** Days audit entries are kept, reads and actions separately. */
export const RetentionRecord = z.object({ reads_days: z.number().int(), actions_days: z.number().int() });

/** How search runs, and how far embedding of the tenant's records has come (hybrid search only uses embedded ones). */
export const SearchStatusRecord = z.object({
  mode: z.enum(['keyword', 'hybrid']),
  model: z.string().nullable().describe('The embedding model; null when search is keyword-only'),
  pending: z.number().int().describe('Records waiting to be embedded'),
  failed: z.number().int().describe('Records the provider refused repeatedly; a reindex queues them again'),
  embedded: z.number().int().describe('Records with a vector of the current model'),
});

/** What a reindex queued, and the status right after. */
export const ReindexRecord = SearchStatusRecord.extend({ queued: z.number().int() });

/** The end of v1 as scheduled (all null while v1 has no end): every response then carries Deprecation and Sunset. */
export const V1ScheduleRecord = z.object({
  type: z.literal('v1_schedule'),
  deprecation_at: Timestamp.nullable(),
  sunset_at: Timestamp.nullable(),
  set_at: Timestamp.nullable().describe('When notice was given'),
});
export type V1ScheduleRecord = z.infer<typeof V1ScheduleRecord>;

/** A list answered whole (admin lists are small: a tenant's deployments, principals, grants, people). */
export function itemsOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item) });
}
