import { z } from 'zod';
import { TIMEOUT_BOUNDS_MS } from './agent-backend.js';
import { Region } from './admin-records.js';
import { Cursor, DeploymentId, Id, LIMITS, untilNotBeforeSince } from './params.js';
import { Access, DateOnly, Platform, Timestamp } from './records.js';
import { secretReferenceProblem } from './secret-reference.js';

/** Bounds of the admin inputs. */
export const ADMIN_LIMITS = {
  name: 200,
  voice: 100,
  url: 2048,
  fallbackLine: 500,
  systemPrompt: 20000,
  people: 5000,
  externalId: 256,
} as const;

/** The default fallback line, spoken when a deployment's backend fails and none was registered. */
export const DEFAULT_FALLBACK_LINE = "Sorry, I can't answer that right now.";

const trimmed = (max: number, what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} must not be empty`)
    .max(max, `${what} must be at most ${max} characters`);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const Uuid = z.string().toLowerCase().regex(UUID, 'must be a UUID');

const ClientId = Id.describe("A service principal's client id");

/** An https URL (the avatar a meeting platform shows). */
const HttpsUrl = z
  .string()
  .max(ADMIN_LIMITS.url)
  .refine((value) => URL.canParse(value) && new URL(value).protocol === 'https:', 'must be an https URL');

/** A secret reference (`env:NAME`, `file:/path`, `keychain:service/account`); anything else may be a raw secret. */
export const SecretReference = z
  .string()
  .max(1024)
  .superRefine((value, ctx) => {
    const problem = secretReferenceProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe('Where the shared secret is kept: env:NAME, file:/path or keychain:service/account (never the secret)');

type Refinement = z.core.$RefinementCtx<Record<string, unknown>>;

/** At least one of the fields must be sent. */
function someOf(fields: readonly string[]) {
  return (input: Record<string, unknown>, ctx: Refinement): void => {
    if (fields.every((field) => input[field] === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: `send at least one of ${fields.join(', ')}` });
    }
  };
}

export const GetTenantInput = z.strictObject({});

export const UpdateTenantInput = z
  .strictObject({
    name: trimmed(ADMIN_LIMITS.name, 'name').optional().describe("The tenant's display name"),
    region: Region.optional().describe('Where the tenant is hosted: us or ca'),
  })
  .superRefine(someOf(['name', 'region']));

export const CreateDeploymentInput = z.strictObject({
  name: trimmed(ADMIN_LIMITS.name, 'name').describe("The teammate's name, as it joins meetings"),
  platform: Platform.describe('Meeting platform: teams, zoom, meet or webex'),
  voice: trimmed(ADMIN_LIMITS.voice, 'voice').describe('The voice it speaks with'),
  avatar_url: HttpsUrl.optional().describe('https URL of its avatar image'),
});

export const ListAdminDeploymentsInput = z.strictObject({});
export const GetAdminDeploymentInput = z.strictObject({ deployment_id: DeploymentId });

export const CreatePrincipalInput = z
  .strictObject({
    display_name: trimmed(ADMIN_LIMITS.name, 'display_name').describe('What the principal is for, e.g. "support agent"'),
    is_admin: z.boolean().optional().describe('true: its tokens carry the Memory.Admin role (default false)'),
    object_id: Uuid.optional().describe("Register an identity provider's principal by its object id (with client_id)"),
    client_id: Uuid.optional().describe("Register an identity provider's principal by its client id (with object_id)"),
  })
  .superRefine((input, ctx) => {
    if ((input.object_id === undefined) !== (input.client_id === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['object_id'], message: 'object_id and client_id go together' });
    }
  });

export const ListPrincipalsInput = z.strictObject({});
export const GetPrincipalInput = z.strictObject({ client_id: ClientId });
export const RotatePrincipalSecretInput = z.strictObject({ client_id: ClientId });

export const SetGrantInput = z.strictObject({
  client_id: ClientId,
  deployment_id: DeploymentId,
  access: Access.optional().describe('read (default) or read_write'),
});
export const RevokeGrantInput = z.strictObject({ client_id: ClientId, deployment_id: DeploymentId });
export const ListGrantsInput = z.strictObject({
  client_id: ClientId.optional().describe("Only this principal's grants"),
  deployment_id: DeploymentId.optional().describe('Only grants on this deployment'),
});

export const SetAgentBackendInput = z.strictObject({
  deployment_id: DeploymentId,
  url: z.string().max(ADMIN_LIMITS.url).describe('The full https URL the service POSTs to'),
  secret_ref: SecretReference,
  timeout_ms: z
    .number()
    .int()
    .min(TIMEOUT_BOUNDS_MS.min)
    .max(TIMEOUT_BOUNDS_MS.max)
    .optional()
    .describe(`Round-trip budget, ${TIMEOUT_BOUNDS_MS.min}..${TIMEOUT_BOUNDS_MS.max} ms, default ${TIMEOUT_BOUNDS_MS.default}`),
  fallback_line: trimmed(ADMIN_LIMITS.fallbackLine, 'fallback_line')
    .optional()
    .describe('Spoken when the backend fails or misses its budget'),
  system_prompt: trimmed(ADMIN_LIMITS.systemPrompt, 'system_prompt')
    .optional()
    .describe("The system prompt sent to the backend (default: the service's)"),
});
export const GetAgentBackendInput = z.strictObject({ deployment_id: DeploymentId });

export const PersonInput = z.strictObject({
  idp_id: Id.describe('Identity-provider object id'),
  display_name: trimmed(ADMIN_LIMITS.name, 'display_name').describe('The name transcripts show for this person'),
});
export const SetPeopleInput = z.strictObject({
  people: z.array(PersonInput).min(1).max(ADMIN_LIMITS.people).describe('Name-to-id mappings to add or replace'),
});
export const ListPeopleInput = z.strictObject({});

/** Query fields of a transcript import; a JSON meeting document carries its own and takes none of these. */
export const ImportMeetingInput = z.strictObject({
  deployment_id: DeploymentId,
  title: trimmed(ADMIN_LIMITS.name, 'title').optional().describe('Meeting title (WebVTT only, required there)'),
  started_at: Timestamp.optional().describe('When the meeting started, the offset cue times count from (WebVTT only, required there)'),
  ended_at: Timestamp.optional().describe('When it ended (WebVTT only; default: start plus the last cue)'),
  platform: Platform.optional().describe("WebVTT only; default: the deployment's platform"),
  organizer: trimmed(ADMIN_LIMITS.name, 'organizer').optional().describe('Organizer name (WebVTT only; default: the first speaker)'),
  external_id: trimmed(ADMIN_LIMITS.externalId, 'external_id')
    .optional()
    .describe("The source system's meeting id (WebVTT only; default: a hash of the file), makes re-imports no-ops"),
});

/** Filters of the tenant's audit log; since/until are inclusive UTC days. */
export const QueryAuditInput = z
  .strictObject({
  since: DateOnly.optional(),
  until: DateOnly.optional(),
  principal_oid: Id.optional().describe("Only this principal's calls (its object_id)"),
  deployment_id: Id.optional().describe('Only calls on this deployment'),
  operation: z.string().min(1).max(200).optional().describe('Only this operation, e.g. updateDecision'),
  kind: z.enum(['read', 'action']).optional(),
  surface: z.enum(['rest', 'mcp']).optional(),
  status: z.number().int().min(100).max(599).optional().describe('Only calls answered with this status'),
  request_id: Id.optional().describe('The one call with this request id'),
  limit: z.number().int().min(LIMITS.list.min).max(LIMITS.list.max).optional(),
  cursor: Cursor.optional(),
  })
  .superRefine(untilNotBeforeSince);

export const VerifyAuditInput = z.strictObject({});
export const GetRetentionInput = z.strictObject({});

const RetentionDays = z.number().int().min(1).max(36_500);
export const SetRetentionInput = z
  .strictObject({
    reads_days: RetentionDays.optional().describe('Days read calls are kept (default 90)'),
    actions_days: RetentionDays.optional().describe('Days actions are kept (default 7 years)'),
  })
  .superRefine(someOf(['reads_days', 'actions_days']));

export const GetSearchStatusInput = z.strictObject({});
export const ReindexSearchInput = z.strictObject({
  deployment_id: DeploymentId.optional().describe('Only this deployment; default every deployment of the tenant'),
});

export const GetV1ScheduleInput = z.strictObject({});
const Instant = z.union([Timestamp, DateOnly]);
export const SetV1ScheduleInput = z.strictObject({
  deprecation_at: Instant.describe('When v1 is deprecated: at least 90 days from now (YYYY-MM-DD or a timestamp)'),
  sunset_at: Instant.describe('When v1 stops answering: at least 180 days after deprecation_at'),
});
export const ClearV1ScheduleInput = z.strictObject({});

export type UpdateTenantInput = z.infer<typeof UpdateTenantInput>;
export type CreateDeploymentInput = z.infer<typeof CreateDeploymentInput>;
export type CreatePrincipalInput = z.infer<typeof CreatePrincipalInput>;
export type SetGrantInput = z.infer<typeof SetGrantInput>;
export type SetAgentBackendInput = z.infer<typeof SetAgentBackendInput>;
export type ImportMeetingInput = z.infer<typeof ImportMeetingInput>;
