import { randomUUID } from 'node:crypto';
import { TIMEOUT_BOUNDS_MS } from '../../contract/agent-backend.js';
import {
  type AdminOperationInput,
  type AdminOperationName,
  type AnyAdminOperation,
} from '../../contract/admin-operations.js';
import { DEFAULT_FALLBACK_LINE } from '../../contract/admin-params.js';
import type { Caller } from '../access/index.js';
import { getAuditRetention, queryAuditLog, retentionView, setAuditRetention, verifyAuditChain } from '../audit/index.js';
import { ADMIN_ROLE } from '../auth/issuer.js';
import { generateSecret, hashSecret } from '../auth/secret-hash.js';
import type { CursorCodec } from '../server/cursor.js';
import type { CallContext, OperationResult } from '../server/operation-handlers.js';
import { HttpProblem, invalidRequest } from '../server/problem.js';
import { clearV1Schedule, getV1Schedule, setV1Schedule } from '../server/versioning.js';
import type { Principal, Scope, Store } from '../store/store.js';
import { backendUrlProblem, type BackendInvoker, type BackendNetworkPolicy } from '../backend/index.js';
import { reindexSearch, searchStatus } from '../search/search-admin.js';
import type { SearchService } from '../search/search-service.js';
import { importUpload } from './import-upload.js';
import { isOperatorTenant } from './init.js';
import {
  backendView,
  credentialView,
  grantView,
  personView,
  principalView,
  scheduleView,
  tenantView,
  type TokenEndpoints,
} from './views.js';

export interface AdminDeps {
  store: Store;
  cursors: CursorCodec;
  /** The built-in issuer's endpoints, named in issued credentials; undefined when tokens come from Entra ID. */
  tokenEndpoints?: TokenEndpoints;
  /** The scope principals request: `${audience}/.default`. */
  scope: string;
  /** What agent-backend URLs may point at (registration refuses what a call would refuse). */
  backends: BackendNetworkPolicy;
  /** Calls deployments' agent backends (askTeammate). */
  invoker: BackendInvoker;
  /** How search runs (getSearchStatus, reindexSearch). */
  search: SearchService;
}

type Handler<N extends AdminOperationName> = (
  input: AdminOperationInput<N>,
  ctx: CallContext,
  deps: AdminDeps,
) => Promise<OperationResult>;

/** A principal created outside the built-in issuer has no secret here; this hash never verifies. */
const NO_SECRET = 'external';

const ok = (body: unknown): OperationResult => ({ status: 200, body });

/** The one 403 every non-admin caller gets, whatever grants it holds. */
function adminOnly(): HttpProblem {
  return new HttpProblem('forbidden', 'This call needs an admin principal: a token with the Memory.Admin app role.');
}

function operatorOnly(): HttpProblem {
  return new HttpProblem(
    'forbidden',
    'This call changes the whole core: it needs an admin of the operator tenant, the first one `memory serve init` created.',
  );
}

function notFound(what: string): HttpProblem {
  return new HttpProblem('not-found', `No ${what} in your tenant.`);
}

/** Throws the admin 403 unless the caller's token carries the Memory.Admin app role. */
export function requireAdmin(caller: Caller): void {
  if (!caller.roles.includes(ADMIN_ROLE)) throw adminOnly();
}

async function requireOperator(ctx: CallContext, deps: AdminDeps): Promise<void> {
  if (!(await isOperatorTenant(deps.store, ctx.caller.tenantId))) throw operatorOnly();
}

async function deploymentScope(deps: AdminDeps, caller: Caller, deploymentId: string): Promise<Scope> {
  const deployment = await deps.store.getDeployment(caller.tenantId, deploymentId);
  if (!deployment) throw notFound(`deployment ${deploymentId}`);
  return { tenantId: caller.tenantId, deploymentId };
}

async function principalOf(deps: AdminDeps, caller: Caller, clientId: string): Promise<Principal> {
  const principal = await deps.store.getPrincipalByClientId(caller.tenantId, clientId);
  if (!principal) throw notFound(`service principal with client id ${clientId}`);
  return principal;
}

async function createdPrincipal(deps: AdminDeps, caller: Caller, input: AdminOperationInput<'createPrincipal'>) {
  const external = input.object_id !== undefined && input.client_id !== undefined;
  if (external) {
    const taken = (await deps.store.listPrincipals(caller.tenantId)).some(
      (p) => p.oid === input.object_id || p.clientId === input.client_id,
    );
    if (taken) throw invalidRequest([{ name: 'client_id', in: 'body', reason: 'a principal with this object_id or client_id exists' }]);
  }
  const secret = external ? null : generateSecret();
  const principal = await deps.store.createPrincipal({
    tenantId: caller.tenantId,
    oid: input.object_id ?? randomUUID(),
    clientId: input.client_id ?? randomUUID(),
    displayName: input.display_name,
    secretHash: secret === null ? NO_SECRET : await hashSecret(secret),
    isAdmin: input.is_admin ?? false,
  });
  return { principal, secret };
}

const handlers: { [N in AdminOperationName]: Handler<N> } = {
  async getTenant(_input, ctx, deps) {
    const tenant = await deps.store.getTenant(ctx.caller.tenantId);
    if (!tenant) throw notFound('tenant record: set it up with `memory serve init --tenant-id <your tenant id>`');
    return ok(tenantView(tenant));
  },
  async updateTenant(input, ctx, deps) {
    const tenant = await deps.store.updateTenant(ctx.caller.tenantId, { name: input.name, region: input.region });
    if (!tenant) throw notFound('tenant record: set it up with `memory serve init --tenant-id <your tenant id>`');
    return ok(tenantView(tenant));
  },

  async createDeployment(input, ctx, deps) {
    if (!(await deps.store.getTenant(ctx.caller.tenantId))) throw notFound('tenant record: run `memory serve init`');
    const created = await deps.store.createDeployment(ctx.caller.tenantId, {
      name: input.name,
      platform: input.platform,
      voice: input.voice,
      avatarUrl: input.avatar_url ?? null,
    });
    return { status: 201, body: created, createdId: created.id, location: `/v1/admin/deployments/${created.id}` };
  },
  async listAdminDeployments(_input, ctx, deps) {
    return ok({ items: await deps.store.listTenantDeployments(ctx.caller.tenantId) });
  },
  async getAdminDeployment(input, ctx, deps) {
    const deployment = await deps.store.getDeployment(ctx.caller.tenantId, input.deployment_id);
    if (!deployment) throw notFound(`deployment ${input.deployment_id}`);
    return ok(deployment);
  },

  async createPrincipal(input, ctx, deps) {
    const { principal, secret } = await createdPrincipal(deps, ctx.caller, input);
    return {
      status: 201,
      body: credentialView(principal, secret, deps.tokenEndpoints, deps.scope),
      createdId: principal.oid,
      location: `/v1/admin/principals/${encodeURIComponent(principal.clientId)}`,
    };
  },
  async listPrincipals(_input, ctx, deps) {
    return ok({ items: (await deps.store.listPrincipals(ctx.caller.tenantId)).map(principalView) });
  },
  async getPrincipal(input, ctx, deps) {
    return ok(principalView(await principalOf(deps, ctx.caller, input.client_id)));
  },
  async rotatePrincipalSecret(input, ctx, deps) {
    const principal = await principalOf(deps, ctx.caller, input.client_id);
    if (principal.secretHash === NO_SECRET) {
      throw invalidRequest(
        [{ name: 'client_id', in: 'path', reason: 'this principal gets its tokens from its identity provider; it has no secret here' }],
      );
    }
    const secret = generateSecret();
    await deps.store.setPrincipalSecretHash(ctx.caller.tenantId, principal.oid, await hashSecret(secret));
    return ok(credentialView(principal, secret, deps.tokenEndpoints, deps.scope));
  },

  async setGrant(input, ctx, deps) {
    const principal = await principalOf(deps, ctx.caller, input.client_id);
    const scope = await deploymentScope(deps, ctx.caller, input.deployment_id);
    const access = input.access ?? 'read';
    await deps.store.setGrant(scope.tenantId, principal.oid, scope.deploymentId, access);
    return ok(grantView({ oid: principal.oid, clientId: principal.clientId, deploymentId: scope.deploymentId, access }));
  },
  async revokeGrant(input, ctx, deps) {
    const principal = await principalOf(deps, ctx.caller, input.client_id);
    const scope = await deploymentScope(deps, ctx.caller, input.deployment_id);
    const [grant] = await deps.store.listGrants(scope.tenantId, { oid: principal.oid, deploymentId: scope.deploymentId });
    if (!grant || !(await deps.store.revokeGrant(scope.tenantId, principal.oid, scope.deploymentId))) {
      throw notFound(`grant of ${input.client_id} on ${input.deployment_id}`);
    }
    return ok(grantView(grant));
  },
  async listGrants(input, ctx, deps) {
    const principal =
      input.client_id === undefined ? undefined : await deps.store.getPrincipalByClientId(ctx.caller.tenantId, input.client_id);
    if (input.client_id !== undefined && !principal) return ok({ items: [] });
    const grants = await deps.store.listGrants(ctx.caller.tenantId, { oid: principal?.oid, deploymentId: input.deployment_id });
    return ok({ items: grants.map(grantView) });
  },

  async setAgentBackend(input, ctx, deps) {
    const scope = await deploymentScope(deps, ctx.caller, input.deployment_id);
    const problem = backendUrlProblem(input.url, deps.backends);
    if (problem !== null) throw invalidRequest([{ name: 'url', in: 'body', reason: problem }]);
    const backend = await deps.store.setAgentBackend(scope, {
      url: input.url,
      secretRef: input.secret_ref,
      timeoutMs: input.timeout_ms ?? TIMEOUT_BOUNDS_MS.default,
      fallbackLine: input.fallback_line ?? DEFAULT_FALLBACK_LINE,
      systemPrompt: input.system_prompt ?? null,
      updatedBy: ctx.caller.clientId,
    });
    return ok(backendView(scope.deploymentId, backend));
  },
  async getAgentBackend(input, ctx, deps) {
    const scope = await deploymentScope(deps, ctx.caller, input.deployment_id);
    const backend = await deps.store.getAgentBackend(scope);
    if (!backend) throw notFound(`agent backend registered for deployment ${input.deployment_id}`);
    return ok(backendView(scope.deploymentId, backend));
  },

  async askTeammate(input, ctx, deps) {
    const scope = await deploymentScope(deps, ctx.caller, input.deployment_id);
    const deployment = (await deps.store.getDeployment(scope.tenantId, scope.deploymentId))!;
    if (input.meeting_id !== undefined && !(await deps.store.meetingExists(scope, input.meeting_id))) {
      throw invalidRequest([{ name: 'meeting_id', in: 'body', reason: 'no such meeting in this deployment' }]);
    }
    const invocation = await deps.invoker.ask({
      tenantId: scope.tenantId,
      deployment: { id: deployment.id, name: deployment.name },
      meetingId: input.meeting_id,
      utterance: input.utterance,
    });
    return ok(invocation);
  },

  async setPeople(input, ctx, deps) {
    const people = input.people.map((person) => ({ idpId: person.idp_id, displayName: person.display_name }));
    await deps.store.setPersonNames(ctx.caller.tenantId, people);
    return ok({ items: (await deps.store.listPersonNames(ctx.caller.tenantId)).map(personView) });
  },
  async listPeople(_input, ctx, deps) {
    return ok({ items: (await deps.store.listPersonNames(ctx.caller.tenantId)).map(personView) });
  },

  async importMeeting(input, ctx, deps) {
    const scope = await deploymentScope(deps, ctx.caller, input.deployment_id);
    const deployment = (await deps.store.getDeployment(scope.tenantId, scope.deploymentId))!;
    return importUpload(deps.store, scope, deployment.platform, input, ctx.upload!);
  },

  async queryAudit(input, ctx, deps) {
    const page = await queryAuditLog(deps, ctx.caller.tenantId, input);
    return ok({ items: page.items.map((entry) => ({ type: 'audit_entry', ...entry })), next_cursor: page.next_cursor });
  },
  async verifyAudit(_input, ctx, deps) {
    await requireOperator(ctx, deps);
    return ok(await verifyAuditChain(deps.store));
  },
  async getRetention(_input, _ctx, deps) {
    return ok(retentionView(await getAuditRetention(deps.store)));
  },
  async setRetention(input, ctx, deps) {
    await requireOperator(ctx, deps);
    return ok(retentionView(await setAuditRetention(deps.store, input)));
  },
  async getSearchStatus(_input, ctx, deps) {
    return ok(await searchStatus(deps.store, deps.search, ctx.caller.tenantId));
  },
  async reindexSearch(input, ctx, deps) {
    if (input.deployment_id !== undefined && !(await deps.store.getDeployment(ctx.caller.tenantId, input.deployment_id))) {
      throw notFound('deployment with that id');
    }
    return ok(await reindexSearch(deps.store, deps.search, ctx.caller.tenantId, input.deployment_id));
  },
  async getV1Schedule(_input, _ctx, deps) {
    return ok(scheduleView(await getV1Schedule(deps.store)));
  },
  async setV1Schedule(input, ctx, deps) {
    await requireOperator(ctx, deps);
    return ok(scheduleView(await setV1Schedule(deps.store, input)));
  },
  async clearV1Schedule(_input, ctx, deps) {
    await requireOperator(ctx, deps);
    await clearV1Schedule(deps.store);
    return ok(scheduleView(null));
  },
};

/**
 * Runs one validated admin operation. Every one needs an admin principal (the Memory.Admin app role in its token;
 * grants do not count, so a read or read_write principal gets the same 403 as any other) and acts inside the
 * caller's own tenant, the token's `tid`.
 */
export function createAdminExecutor(deps: AdminDeps) {
  return async function executeAdmin(op: AnyAdminOperation, input: unknown, ctx: CallContext): Promise<OperationResult> {
    requireAdmin(ctx.caller);
    const handler = handlers[op.name] as Handler<AdminOperationName>;
    return handler(input as never, ctx, deps);
  };
}

export type AdminExecutor = ReturnType<typeof createAdminExecutor>;
