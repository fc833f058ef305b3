import {
  LIMITS,
  SEARCHABLE_TYPES,
  TIMESTAMP_FIELD,
  type AnyOperation,
  type ListableRecord,
  type OperationInput,
  type OperationName,
} from '../../contract/index.js';
import { operationByName } from '../../contract/index.js';
import { actorOf, authorize, type Caller } from '../access/index.js';
import type { AuditEntry, Keyset, ListKind, ListQuery, Scope, Store, WriteAudit } from '../store/store.js';
import type { CursorCodec } from './cursor.js';
import { HttpProblem, invalidRequest } from './problem.js';
import {
  createSearchService,
  isSearchPosition,
  SearchUnavailableError,
  type SearchService,
} from '../search/search-service.js';

/** What a handler answers: the body, its status, and for a creation the path of the new record. */
export interface OperationResult {
  status: number;
  body: unknown;
  location?: string;
  /** The id of a record the call created, for the audit log. */
  createdId?: string;
  /** Whether the store appended the call's audit entry with its change (see CallContext.auditEntry). */
  audited?: boolean;
}

export interface CallContext {
  caller: Caller;
  surface: 'rest' | 'mcp';
  /** The streamed file of an upload operation (Operation.upload), read by its handler. */
  upload?: { contentType: string; body: AsyncIterable<Uint8Array> };
  /**
   * Builds the call's audit entry from the record an action writes and the status it answers, for the store to
   * append in the action's own transaction: a change never commits without its entry.
   */
  auditEntry?: (recordId: string, status: number) => AuditEntry;
}

/** The store's side of CallContext.auditEntry for an action answering `status`. */
function writeAudit(ctx: CallContext, status: number): WriteAudit | undefined {
  const build = ctx.auditEntry;
  return build && ((recordId) => build(recordId, status));
}

/** The answer of an action that found its record, whose audit entry the store wrote if it was given the means. */
function changed(record: unknown, ctx: CallContext): OperationResult {
  return { status: 200, body: record, audited: ctx.auditEntry !== undefined };
}

/** Where a non-path field of the operation came from, so a refusal names the right place. */
function fieldLocation(ctx: CallContext, op: AnyOperation): 'query' | 'body' | 'arguments' {
  if (ctx.surface === 'mcp') return 'arguments';
  return op.method === 'GET' ? 'query' : 'body';
}

interface Deps {
  store: Store;
  cursors: CursorCodec;
  search: SearchService;
}

type Handler<N extends OperationName> = (input: OperationInput<N>, ctx: CallContext, deps: Deps) => Promise<OperationResult>;

const ok = (body: unknown): OperationResult => ({ status: 200, body });

function notFound(what: string): HttpProblem {
  return new HttpProblem('not-found', `No ${what} with that id in this deployment.`);
}

function badCursor(ctx: CallContext, op: AnyOperation): HttpProblem {
  return invalidRequest([
    { name: 'cursor', in: fieldLocation(ctx, op), reason: 'not a cursor issued for this query; start again without it' },
  ]);
}

async function scopeFor(input: { deployment_id: string }, ctx: CallContext, deps: Deps, op: AnyOperation): Promise<Scope> {
  await authorize(deps.store, ctx.caller, input.deployment_id, op.access);
  return { tenantId: ctx.caller.tenantId, deploymentId: input.deployment_id };
}

type ListInput = {
  deployment_id: string;
  since?: string;
  until?: string;
  meeting_id?: string;
  status?: string;
  assignee_idp_id?: string;
  limit?: number;
  cursor?: string;
  order?: 'asc' | 'desc';
};

function keysetOf(kind: ListKind, record: ListableRecord): Keyset {
  const field = TIMESTAMP_FIELD[kind] as keyof ListableRecord;
  return { ts: String(record[field]), id: record.id };
}

/** One page of a list: asks the store for one more than the page so it knows whether there is a next page. */
async function listPage(kind: ListKind, op: AnyOperation, input: ListInput, ctx: CallContext, deps: Deps) {
  const scope = await scopeFor(input, ctx, deps, op);
  const binding = { operation: op.name, tenantId: scope.tenantId, filters: { ...input } };
  const after = input.cursor === undefined ? undefined : deps.cursors.open<Keyset>(binding, input.cursor);
  if (after === null) throw badCursor(ctx, op);
  const limit = input.limit ?? LIMITS.list.default;
  const query: ListQuery = {
    since: input.since,
    until: input.until,
    meetingId: input.meeting_id,
    status: input.status,
    assigneeIdpId: input.assignee_idp_id,
    order: input.order ?? 'desc',
    limit: limit + 1,
    after,
  };
  const rows = await deps.store.list(kind, scope, query);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor = rows.length > limit && last ? deps.cursors.seal(binding, keysetOf(kind, last)) : null;
  return ok({ items, next_cursor: nextCursor });
}


const handlers: { [N in OperationName]: Handler<N> } = {
  async listDeployments(_input, ctx, deps) {
    return ok({ items: await deps.store.listDeploymentsFor(ctx.caller.tenantId, ctx.caller.oid) });
  },
  listDecisions: (input, ctx, deps) => listPage('decision', opNamed('listDecisions'), input, ctx, deps),
  listOpenQuestions: (input, ctx, deps) => listPage('open_question', opNamed('listOpenQuestions'), input, ctx, deps),
  listActionItems: (input, ctx, deps) => listPage('action_item', opNamed('listActionItems'), input, ctx, deps),
  listStatements: (input, ctx, deps) => listPage('statement', opNamed('listStatements'), input, ctx, deps),
  listTopics: (input, ctx, deps) => listPage('topic', opNamed('listTopics'), input, ctx, deps),

  async searchMemory(input, ctx, deps) {
    const op = opNamed('searchMemory');
    const scope = await scopeFor(input, ctx, deps, op);
    const binding = { operation: op.name, tenantId: scope.tenantId, filters: { ...input } };
    const position = input.cursor === undefined ? undefined : deps.cursors.open<unknown>(binding, input.cursor);
    if (position !== undefined && !isSearchPosition(position)) throw badCursor(ctx, op);
    const request = {
      text: input.query,
      types: input.types ?? SEARCHABLE_TYPES,
      since: input.since,
      until: input.until,
      limit: input.limit ?? LIMITS.search.default,
    };
    const page = await deps.search.search(scope, request, position).catch((error: unknown) => {
      if (error instanceof SearchUnavailableError) throw new HttpProblem('unavailable', `Search could not rank this page: ${error.message}.`);
      throw error;
    });
    return ok({
      results: page.results,
      next_cursor: page.next ? deps.cursors.seal(binding, page.next) : null,
      was_capped: page.capped,
    });
  },

  async getMeeting(input, ctx, deps) {
    const scope = await scopeFor(input, ctx, deps, opNamed('getMeeting'));
    return ok(found(await deps.store.getMeeting(scope, input.meeting_id), 'meeting'));
  },
  async getDecision(input, ctx, deps) {
    const scope = await scopeFor(input, ctx, deps, opNamed('getDecision'));
    return ok(found(await deps.store.get('decision', scope, input.decision_id), 'decision'));
  },
  async getOpenQuestion(input, ctx, deps) {
    const scope = await scopeFor(input, ctx, deps, opNamed('getOpenQuestion'));
    return ok(found(await deps.store.get('open_question', scope, input.open_question_id), 'open question'));
  },
  async getActionItem(input, ctx, deps) {
    const scope = await scopeFor(input, ctx, deps, opNamed('getActionItem'));
    return ok(found(await deps.store.get('action_item', scope, input.action_item_id), 'action item'));
  },

  async createActionItem(input, ctx, deps) {
    const op = opNamed('createActionItem');
    const scope = await scopeFor(input, ctx, deps, op);
    if (input.meeting_id !== undefined && !(await deps.store.meetingExists(scope, input.meeting_id))) {
      throw invalidRequest([
        { name: 'meeting_id', in: fieldLocation(ctx, op), reason: 'no such meeting in this deployment' },
      ]);
    }
    const created = await deps.store.createActionItem(
      scope,
      { text: input.text, assigneeIdpId: input.assignee_idp_id, dueDate: input.due_date, meetingId: input.meeting_id },
      await actorOf(deps.store, ctx.caller),
      writeAudit(ctx, 201),
    );
    return {
      status: 201,
      body: created,
      createdId: created.id,
      audited: ctx.auditEntry !== undefined,
      location: `/v1/deployments/${encodeURIComponent(scope.deploymentId)}/action-items/${encodeURIComponent(created.id)}`,
    };
  },
  async updateActionItem(input, ctx, deps) {
    const scope = await scopeFor(input, ctx, deps, opNamed('updateActionItem'));
    const updated = await deps.store.updateActionItem(
      scope,
      input.action_item_id,
      {
        status: input.status,
        assigneeIdpId: input.assignee_idp_id,
        dueDate: input.clear_due_date ? null : input.due_date,
      },
      await actorOf(deps.store, ctx.caller),
      writeAudit(ctx, 200),
    );
    return changed(found(updated, 'action item'), ctx);
  },
  async resolveOpenQuestion(input, ctx, deps) {
    const scope = await scopeFor(input, ctx, deps, opNamed('resolveOpenQuestion'));
    const updated = await deps.store.updateOpenQuestion(
      scope,
      input.open_question_id,
      { status: input.status, note: noteChange(input) },
      await actorOf(deps.store, ctx.caller),
      writeAudit(ctx, 200),
    );
    return changed(found(updated, 'open question'), ctx);
  },
  async updateDecision(input, ctx, deps) {
    const scope = await scopeFor(input, ctx, deps, opNamed('updateDecision'));
    const updated = await deps.store.updateDecision(
      scope,
      input.decision_id,
      { status: input.status, note: noteChange(input) },
      await actorOf(deps.store, ctx.caller),
      writeAudit(ctx, 200),
    );
    return changed(found(updated, 'decision'), ctx);
  },
};

/** The record, or the 404 that says which kind was not found in the deployment. */
function found<T>(record: T | null, what: string): T {
  if (record === null) throw notFound(what);
  return record;
}

/** The note change of a workflow update: a note sets it, clear_note removes it, neither leaves it. */
function noteChange(input: { note?: string; clear_note?: boolean }): string | null | undefined {
  return input.clear_note ? null : input.note;
}

function opNamed(name: OperationName): AnyOperation {
  return operationByName(name);
}

/**
 * Runs one already-validated operation for a verified caller: authorization on the deployment, then the store.
 * REST and MCP both come through here, so the two surfaces cannot answer differently.
 */
export function createOperationExecutor(options: Omit<Deps, 'search'> & { search?: SearchService }) {
  // Without a search service (tests of other surfaces), search is the store's keyword search.
  const deps: Deps = { ...options, search: options.search ?? createSearchService({ store: options.store }) };
  return async function execute(op: AnyOperation, input: unknown, ctx: CallContext): Promise<OperationResult> {
    const handler = handlers[op.name] as Handler<OperationName>;
    return handler(input as never, ctx, deps);
  };
}

export type OperationExecutor = ReturnType<typeof createOperationExecutor>;
