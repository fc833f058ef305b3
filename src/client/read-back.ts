import type { OperationName } from '../contract/index.js';

/** The single-record GET that shows the state a write leaves, per write the client can read back. */
const READ_BACK: Partial<Record<OperationName, OperationName>> = {
  updateDecision: 'getDecision',
  resolveOpenQuestion: 'getOpenQuestion',
  updateActionItem: 'getActionItem',
};

/** The read to run after a write answered 503, or undefined when there is none (a create has no id yet). */
export function readBackOperation(write: OperationName): OperationName | undefined {
  return READ_BACK[write];
}

/** Input fields that are not record fields: value and clear flags map onto the record differently. */
const CLEAR_FLAGS: Record<string, string> = { clear_note: 'note', clear_due_date: 'due_date' };

/**
 * True when `record` shows every change `input` asked for: each value field equals the record's (assignee_idp_id
 * against the assignee's idp_id), and each `clear_*: true` left its field null. Path fields are not changes.
 */
export function showsChange(input: Record<string, unknown>, record: Record<string, unknown>, pathFields: readonly string[]): boolean {
  return Object.entries(input).every(([name, wanted]) => {
    if (wanted === undefined || pathFields.includes(name)) return true;
    const cleared = CLEAR_FLAGS[name];
    if (cleared !== undefined) return wanted !== true || record[cleared] === null;
    const actual = name === 'assignee_idp_id' ? (record.assignee as { idp_id?: unknown } | null)?.idp_id : record[name];
    return typeof wanted === 'string' && typeof actual === 'string' ? actual === wanted.trim() : actual === wanted;
  });
}
