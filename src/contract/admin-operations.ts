import type { z } from 'zod';
import * as A from './admin-params.js';
import {
  AdminDeployment,
  AgentBackendRecord,
  AuditEntryRecord,
  AuditVerificationRecord,
  RetentionRecord,
  ReindexRecord,
  SearchStatusRecord,
  V1ScheduleRecord,
  GrantRecord,
  IssuedCredential,
  MeetingImportResult,
  PersonRecord,
  PrincipalRecord,
  TenantRecord,
  itemsOf,
} from './admin-records.js';
import { AgentInvocation, AskTeammateInput } from './agent-invocation.js';
import type { Operation } from './operations.js';
import { listEnvelope } from './records.js';

/** Transcripts are streamed, so one import may be far larger than an API body. */
export const IMPORT_MAX_BYTES = 256 * 1024 * 1024;
/** Content types an import takes: a WebVTT transcript, or a JSON meeting document. */
export const IMPORT_CONTENT_TYPES = ['text/vtt', 'application/json'] as const;

function adminOperation<const N extends string, I extends z.ZodObject, O extends z.ZodType>(
  op: Omit<Operation<N, I, O>, 'mcpTool'>,
): Operation<N, I, O> {
  // Admin operations are served over REST (and the CLI) only: an agent's MCP session never administers.
  return { ...op, mcpTool: null };
}

const NEEDS_ADMIN = 'Needs an admin principal.';

export const getTenant = adminOperation({
  name: 'getTenant',
  title: 'Get your tenant',
  description: `The tenant of the calling admin: name and region. ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/tenant',
  access: 'read',
  input: A.GetTenantInput,
  output: TenantRecord,
  successStatus: 200,
  idempotent: true,
});

export const updateTenant = adminOperation({
  name: 'updateTenant',
  title: 'Rename your tenant or set its region',
  description: `Sets the tenant's name or region (us or ca; any other is refused). ${NEEDS_ADMIN}`,
  method: 'PATCH',
  path: '/admin/tenant',
  access: 'write',
  input: A.UpdateTenantInput,
  output: TenantRecord,
  successStatus: 200,
  idempotent: true,
});

export const createDeployment = adminOperation({
  name: 'createDeployment',
  title: 'Create a deployment',
  description: `Creates a named teammate (name, platform, voice, avatar), which provisions memory scoped to it. ${NEEDS_ADMIN}`,
  method: 'POST',
  path: '/admin/deployments',
  access: 'write',
  input: A.CreateDeploymentInput,
  output: AdminDeployment,
  successStatus: 201,
  idempotent: false,
});

export const listAdminDeployments = adminOperation({
  name: 'listAdminDeployments',
  title: "List the tenant's deployments",
  description: `Every deployment of the tenant, whoever holds grants on it, by name. ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/deployments',
  access: 'read',
  input: A.ListAdminDeploymentsInput,
  output: itemsOf(AdminDeployment),
  successStatus: 200,
  idempotent: true,
});

export const getAdminDeployment = adminOperation({
  name: 'getAdminDeployment',
  title: 'Get a deployment',
  description: `One deployment of the tenant. ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/deployments/{deployment_id}',
  access: 'read',
  input: A.GetAdminDeploymentInput,
  output: AdminDeployment,
  successStatus: 200,
  idempotent: true,
});

export const createPrincipal = adminOperation({
  name: 'createPrincipal',
  title: 'Create a service principal',
  description: `Creates a service principal and issues its client secret, which this answer shows once. With object_id and client_id it registers a principal of an external identity provider instead (no secret). ${NEEDS_ADMIN}`,
  method: 'POST',
  path: '/admin/principals',
  access: 'write',
  input: A.CreatePrincipalInput,
  output: IssuedCredential,
  successStatus: 201,
  idempotent: false,
});

export const listPrincipals = adminOperation({
  name: 'listPrincipals',
  title: 'List service principals',
  description: `The tenant's service principals, without secrets. ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/principals',
  access: 'read',
  input: A.ListPrincipalsInput,
  output: itemsOf(PrincipalRecord),
  successStatus: 200,
  idempotent: true,
});

export const getPrincipal = adminOperation({
  name: 'getPrincipal',
  title: 'Get a service principal',
  description: `One service principal by client id, without its secret. ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/principals/{client_id}',
  access: 'read',
  input: A.GetPrincipalInput,
  output: PrincipalRecord,
  successStatus: 200,
  idempotent: true,
});

export const rotatePrincipalSecret = adminOperation({
  name: 'rotatePrincipalSecret',
  title: "Rotate a principal's secret",
  description: `Issues a new client secret, shown once in this answer; the old one stops working at once. ${NEEDS_ADMIN}`,
  method: 'POST',
  path: '/admin/principals/{client_id}/secret',
  access: 'write',
  input: A.RotatePrincipalSecretInput,
  output: IssuedCredential,
  successStatus: 200,
  idempotent: false,
});

export const setGrant = adminOperation({
  name: 'setGrant',
  title: 'Grant a principal access to a deployment',
  description: `Sets a principal's access on a deployment: read (the default) or read_write. A grant on another deployment is the explicit cross-deployment opt-in. ${NEEDS_ADMIN}`,
  method: 'PUT',
  path: '/admin/principals/{client_id}/grants/{deployment_id}',
  access: 'write',
  input: A.SetGrantInput,
  output: GrantRecord,
  successStatus: 200,
  idempotent: true,
});

export const revokeGrant = adminOperation({
  name: 'revokeGrant',
  title: 'Revoke a grant',
  description: `Removes a principal's grant on a deployment and answers the grant that was removed. ${NEEDS_ADMIN}`,
  method: 'DELETE',
  path: '/admin/principals/{client_id}/grants/{deployment_id}',
  access: 'write',
  input: A.RevokeGrantInput,
  output: GrantRecord,
  successStatus: 200,
  idempotent: false,
});

export const listGrants = adminOperation({
  name: 'listGrants',
  title: 'List grants',
  description: `The tenant's grants, optionally of one principal or on one deployment. ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/grants',
  access: 'read',
  input: A.ListGrantsInput,
  output: itemsOf(GrantRecord),
  successStatus: 200,
  idempotent: true,
});

export const setAgentBackend = adminOperation({
  name: 'setAgentBackend',
  title: "Register a deployment's agent backend",
  description: `Registers (or replaces) the https endpoint the teammate asks what to say, its shared secret as a reference (env:NAME, file:/path, keychain:service/account; a raw secret is refused), the round-trip budget, the fallback line and the system prompt. ${NEEDS_ADMIN}`,
  method: 'PUT',
  path: '/admin/deployments/{deployment_id}/agent-backend',
  access: 'write',
  input: A.SetAgentBackendInput,
  output: AgentBackendRecord,
  successStatus: 200,
  idempotent: true,
});

export const getAgentBackend = adminOperation({
  name: 'getAgentBackend',
  title: "Get a deployment's agent backend",
  description: `The registered agent backend of a deployment (404 when none is registered). ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/deployments/{deployment_id}/agent-backend',
  access: 'read',
  input: A.GetAgentBackendInput,
  output: AgentBackendRecord,
  successStatus: 200,
  idempotent: true,
});

export const setPeople = adminOperation({
  name: 'setPeople',
  title: 'Map speaker names to identities',
  description: `Adds or replaces name-to-id mappings: imported transcripts attribute a speaker of that name to that identity-provider id. ${NEEDS_ADMIN}`,
  method: 'POST',
  path: '/admin/people',
  access: 'write',
  input: A.SetPeopleInput,
  output: itemsOf(PersonRecord),
  successStatus: 200,
  idempotent: true,
});

export const listPeople = adminOperation({
  name: 'listPeople',
  title: 'List speaker mappings',
  description: `The tenant's name-to-id mappings, by name. ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/people',
  access: 'read',
  input: A.ListPeopleInput,
  output: itemsOf(PersonRecord),
  successStatus: 200,
  idempotent: true,
});

export const importMeeting = adminOperation({
  name: 'importMeeting',
  title: 'Import a meeting',
  description: `Imports one meeting into a deployment: a WebVTT transcript as Teams or Zoom export it (text/vtt, with title and started_at in the query) or a JSON meeting document (application/json). Streamed and written in one transaction; a malformed file is refused with its line and nothing of it is kept. Importing the same meeting again changes nothing. ${NEEDS_ADMIN}`,
  method: 'POST',
  path: '/admin/deployments/{deployment_id}/meetings',
  access: 'write',
  input: A.ImportMeetingInput,
  output: MeetingImportResult,
  successStatus: 201,
  idempotent: true,
  upload: { contentTypes: IMPORT_CONTENT_TYPES, maxBytes: IMPORT_MAX_BYTES },
});

const OPERATOR_ONLY = 'Needs an admin of the operator tenant (the first one `memory serve init` created): it applies to every tenant of the core.';

export const queryAudit = adminOperation({
  name: 'queryAudit',
  title: 'Query the audit log',
  description: `The tenant's audit entries, newest first: every call on REST and MCP, refused ones included. ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/audit',
  access: 'read',
  input: A.QueryAuditInput,
  output: listEnvelope(AuditEntryRecord),
  successStatus: 200,
  idempotent: true,
});

export const verifyAudit = adminOperation({
  name: 'verifyAudit',
  title: 'Verify the audit log',
  description: `Walks the hash chains of the whole audit log and names the first entry that was changed or cut out. ${OPERATOR_ONLY}`,
  method: 'GET',
  path: '/admin/audit/verification',
  access: 'read',
  input: A.VerifyAuditInput,
  output: AuditVerificationRecord,
  successStatus: 200,
  idempotent: true,
});

export const getRetention = adminOperation({
  name: 'getRetention',
  title: 'Get audit retention',
  description: `How many days read and action entries of the audit log are kept. ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/audit/retention',
  access: 'read',
  input: A.GetRetentionInput,
  output: RetentionRecord,
  successStatus: 200,
  idempotent: true,
});

export const setRetention = adminOperation({
  name: 'setRetention',
  title: 'Set audit retention',
  description: `Sets how many days reads and actions are kept (1..36500 each) and prunes what falls outside at once. ${OPERATOR_ONLY}`,
  method: 'PATCH',
  path: '/admin/audit/retention',
  access: 'write',
  input: A.SetRetentionInput,
  output: RetentionRecord,
  successStatus: 200,
  idempotent: true,
});

export const getSearchStatus = adminOperation({
  name: 'getSearchStatus',
  title: 'Get the search status',
  description: `Whether search is keyword-only or hybrid, the embedding model, and how many of the tenant's records wait to be embedded. ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/search',
  access: 'read',
  input: A.GetSearchStatusInput,
  output: SearchStatusRecord,
  successStatus: 200,
  idempotent: true,
});

export const reindexSearch = adminOperation({
  name: 'reindexSearch',
  title: 'Re-embed records for search',
  description: `Drops the vectors of the tenant's records (or one deployment's) and queues every record to be embedded again by the core's background worker; keyword search is unaffected, semantic search covers records again as they are re-embedded. Follow progress with getSearchStatus. ${NEEDS_ADMIN}`,
  method: 'POST',
  path: '/admin/search/reindex',
  access: 'write',
  input: A.ReindexSearchInput,
  output: ReindexRecord,
  successStatus: 200,
  idempotent: true,
});

export const getV1Schedule = adminOperation({
  name: 'getV1Schedule',
  title: 'Get the v1 deprecation schedule',
  description: `When v1 is deprecated and stops answering, if scheduled. ${NEEDS_ADMIN}`,
  method: 'GET',
  path: '/admin/v1-schedule',
  access: 'read',
  input: A.GetV1ScheduleInput,
  output: V1ScheduleRecord,
  successStatus: 200,
  idempotent: true,
});

export const setV1Schedule = adminOperation({
  name: 'setV1Schedule',
  title: 'Schedule the end of v1',
  description: `Schedules (or moves) the deprecation and sunset of v1; a schedule that gives less than 90 days' notice or less than 180 days between deprecation and sunset is refused. ${OPERATOR_ONLY}`,
  method: 'PUT',
  path: '/admin/v1-schedule',
  access: 'write',
  input: A.SetV1ScheduleInput,
  output: V1ScheduleRecord,
  successStatus: 200,
  idempotent: true,
});

export const clearV1Schedule = adminOperation({
  name: 'clearV1Schedule',
  title: 'Withdraw the end of v1',
  description: `Withdraws the schedule: responses stop carrying Deprecation and Sunset. ${OPERATOR_ONLY}`,
  method: 'DELETE',
  path: '/admin/v1-schedule',
  access: 'write',
  input: A.ClearV1ScheduleInput,
  output: V1ScheduleRecord,
  successStatus: 200,
  idempotent: true,
});

export const askTeammate = adminOperation({
  name: 'askTeammate',
  title: "Ask a deployment's teammate",
  description: `Says the utterance to the deployment's teammate as if in a meeting: the service calls its registered agent backend under the contract (signed, within the budget, searchMemory rounds inside this deployment) and answers what the teammate would say, the fallback line when the backend fails, and a trace of every round. Sends the deployment's memory to the backend, so it is audited as an action. ${NEEDS_ADMIN}`,
  method: 'POST',
  path: '/admin/deployments/{deployment_id}/ask',
  access: 'write',
  input: AskTeammateInput,
  output: AgentInvocation,
  successStatus: 200,
  idempotent: false,
});

/** Every admin operation, served under `/v1/admin` to admin principals only. */
export const ADMIN_OPERATIONS = [
  getTenant,
  updateTenant,
  createDeployment,
  listAdminDeployments,
  getAdminDeployment,
  createPrincipal,
  listPrincipals,
  getPrincipal,
  rotatePrincipalSecret,
  setGrant,
  revokeGrant,
  listGrants,
  setAgentBackend,
  getAgentBackend,
  askTeammate,
  setPeople,
  listPeople,
  importMeeting,
  queryAudit,
  verifyAudit,
  getRetention,
  setRetention,
  getSearchStatus,
  reindexSearch,
  getV1Schedule,
  setV1Schedule,
  clearV1Schedule,
] as const;

export type AnyAdminOperation = (typeof ADMIN_OPERATIONS)[number];
export type AdminOperationName = AnyAdminOperation['name'];
export type AdminOperationInput<N extends AdminOperationName> = z.infer<Extract<AnyAdminOperation, { name: N }>['input']>;
export type AdminOperationOutput<N extends AdminOperationName> = z.infer<Extract<AnyAdminOperation, { name: N }>['output']>;

/** Looks an admin operation up by name; throws on a name the table does not hold (a bug, not user input). */
export function adminOperationByName(name: string): AnyAdminOperation {
  const found = ADMIN_OPERATIONS.find((op) => op.name === name);
  if (!found) throw new Error(`unknown admin operation ${name}`);
  return found;
}
