import { z } from 'zod';
import { QueryAuditInput } from '../../contract/admin-params.js';
import { LIMITS } from '../../contract/index.js';
import type { CursorCodec } from '../server/cursor.js';
import { toInvalidParams } from '../server/invalid-params.js';
import { invalidRequest } from '../server/problem.js';
import type { AuditEntry, AuditKeyset, Store } from '../store/store.js';

/** Filters of an audit query: the admin surface's contract, so the route and the core cannot disagree. */
export const AuditQueryInput = QueryAuditInput;
export type AuditQueryInput = z.input<typeof QueryAuditInput>;

/** An audit entry as the admin surface and `memory admin audit` show it. */
export interface AuditEntryView {
  request_id: string;
  at: string;
  surface: 'rest' | 'mcp';
  tenant_id: string | null;
  principal_oid: string | null;
  remote_address: string | null;
  operation: string;
  kind: 'read' | 'action';
  deployment_id: string | null;
  record_ids: string[];
  status: number;
  duration_ms: number;
}

/** The snake_case shape of an entry, as every other record of the API. */
export function auditEntryView(entry: AuditEntry): AuditEntryView {
  return {
    request_id: entry.id,
    at: entry.at,
    surface: entry.surface,
    tenant_id: entry.tenantId,
    principal_oid: entry.principalOid,
    remote_address: entry.remoteAddress,
    operation: entry.operation,
    kind: entry.kind,
    deployment_id: entry.deploymentId,
    record_ids: entry.recordIds,
    status: entry.status,
    duration_ms: entry.durationMs,
  };
}

/**
 * One page of a tenant's audit log, newest first, in the API's list envelope. `tenantId` null reads the calls that
 * carried no usable token (an operator's view). The cursor is bound to the tenant and filters like every cursor
 * of the API; a tampered one, or one reused with other filters, is refused with a 400.
 */
export async function queryAuditLog(
  deps: { store: Store; cursors: CursorCodec },
  tenantId: string | null,
  input: unknown,
): Promise<{ items: AuditEntryView[]; next_cursor: string | null }> {
  const parsed = AuditQueryInput.safeParse(input);
  if (!parsed.success) {
    throw invalidRequest(toInvalidParams(parsed.error.issues, (field) => ({ name: field, in: 'query' }), 'query'));
  }
  const { cursor, limit = LIMITS.list.default, ...filters } = parsed.data;
  const binding = { operation: 'queryAudit', tenantId: tenantId ?? '', filters };
  const after = cursor === undefined ? undefined : deps.cursors.open<AuditKeyset>(binding, cursor);
  if (after === null || (after !== undefined && !Number.isInteger(after.seq))) {
    throw invalidRequest([{ name: 'cursor', in: 'query', reason: 'not a cursor issued for this query; start again without it' }]);
  }
  const page = await deps.store.queryAudit(tenantId, {
    since: filters.since,
    until: filters.until,
    principalOid: filters.principal_oid,
    deploymentId: filters.deployment_id,
    operation: filters.operation,
    kind: filters.kind,
    surface: filters.surface,
    status: filters.status,
    requestId: filters.request_id,
    limit,
    after,
  });
  return {
    items: page.entries.map(auditEntryView),
    next_cursor: page.next ? deps.cursors.seal(binding, page.next) : null,
  };
}
