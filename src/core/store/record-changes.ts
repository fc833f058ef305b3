import type { ActionItem, Attribution } from '../../contract/index.js';
import type { ActionItemChange, Scope, WorkflowChange } from './store.js';
import { attributionValues, nowTimestamp } from './sqlite-db.js';

/*
 * What a workflow change means, decided once for both engines: which fields end up changed, and that the change
 * stamp (updated_at, updated_by) moves only when one of them really does. The SQL uses `?` placeholders; the
 * PostgreSQL store numbers them.
 */

/** The idp id whose attribution a change assigns, or null when the assignee stays as it is. */
export function newAssigneeId(current: ActionItem, change: ActionItemChange): string | null {
  const id = change.assigneeIdpId;
  return id === undefined || current.assignee?.idp_id === id ? null : id;
}

function sameAttribution(a: Attribution | null, b: Attribution | null): boolean {
  return JSON.stringify(attributionValues(a)) === JSON.stringify(attributionValues(b));
}

export const UPDATE_ACTION_ITEM_SQL = `UPDATE action_items SET status = ?, due_date = ?,
    assignee_kind = ?, assignee_display_name = ?, assignee_idp_id = ?,
    updated_at = ?, updated_by_kind = ?, updated_by_display_name = ?, updated_by_idp_id = ?
  WHERE tenant_id = ? AND deployment_id = ? AND id = ?`;

/**
 * The parameters of UPDATE_ACTION_ITEM_SQL for a change, or null when nothing really changes. `assignee` is the
 * resolved attribution of newAssigneeId, or the current assignee when that was null.
 */
export function actionItemUpdate(
  scope: Scope,
  current: ActionItem,
  change: ActionItemChange,
  assignee: Attribution | null,
  actor: Attribution,
): unknown[] | null {
  const status = change.status ?? current.status;
  const dueDate = change.dueDate === undefined ? current.due_date : change.dueDate;
  const changed = status !== current.status || dueDate !== current.due_date || !sameAttribution(assignee, current.assignee);
  if (!changed) return null;
  return [
    status,
    dueDate,
    ...attributionValues(assignee),
    nowTimestamp(),
    ...attributionValues(actor),
    scope.tenantId,
    scope.deploymentId,
    current.id,
  ];
}

/** The statement that sets a decision's or open question's status and note with a change stamp. */
export function updateWorkflowSql(table: string): string {
  return `UPDATE ${table} SET status = ?, note = ?,
    updated_at = ?, updated_by_kind = ?, updated_by_display_name = ?, updated_by_idp_id = ?
  WHERE tenant_id = ? AND deployment_id = ? AND id = ?`;
}

/** The parameters of updateWorkflowSql for a change, or null when neither status nor note really changes. */
export function workflowUpdate(
  scope: Scope,
  current: { id: string; status: string; note: string | null },
  change: WorkflowChange<string>,
  actor: Attribution,
): unknown[] | null {
  const note = change.note === undefined ? current.note : change.note;
  if (change.status === current.status && note === current.note) return null;
  return [change.status, note, nowTimestamp(), ...attributionValues(actor), scope.tenantId, scope.deploymentId, current.id];
}
