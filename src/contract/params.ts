import { z } from 'zod';
import { ActionItemStatus, DateOnly, DecisionStatus, OpenQuestionStatus, SEARCHABLE_TYPES } from './records.js';

/** Bounds the contract fixes for `limit` and text lengths. */
export const LIMITS = {
  list: { default: 50, min: 1, max: 200 },
  search: { default: 20, min: 1, max: 100 },
  text: 4000,
  note: 4000,
  query: 1000,
  id: 128,
} as const;

const ID_PATTERN = /^[A-Za-z0-9._~-]+$/;

/** An opaque record id as a caller passes it back. */
export const Id = z.string().min(1).max(LIMITS.id).regex(ID_PATTERN, 'must be an id as returned by the service');

export const DeploymentId = Id.describe('The deployment (named teammate) to read or act in');
export const Cursor = z.string().min(1).max(2048).describe("An opaque cursor: the previous page's next_cursor");
export const Order = z
  .enum(['desc', 'asc'])
  .describe('desc (default): newest first; asc: oldest first, transcript order for statements');

function limit(bounds: { default: number; min: number; max: number }) {
  return z
    .number()
    .int()
    .min(bounds.min)
    .max(bounds.max)
    .describe(`Page size, ${bounds.min}..${bounds.max}, default ${bounds.default}`);
}

const trimmed = (max: number, what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} must not be empty`)
    .max(max, `${what} must be at most ${max} characters`);

type Refinement = z.core.$RefinementCtx<Record<string, unknown>>;

/** `until` must not be before `since`; the dates compare as strings because both are YYYY-MM-DD. */
export function untilNotBeforeSince(input: Record<string, unknown>, ctx: Refinement): void {
  const { since, until } = input as { since?: string; until?: string };
  if (since && until && until < since) {
    ctx.addIssue({ code: 'custom', path: ['until'], message: 'must not be before since' });
  }
}

/** A value and the flag that clears it cannot be sent together. */
function exclusiveWithClear(field: string, clearFlag: string) {
  return (input: Record<string, unknown>, ctx: Refinement): void => {
    if (input[field] !== undefined && input[clearFlag] === true) {
      ctx.addIssue({ code: 'custom', path: [clearFlag], message: `cannot be sent together with ${field}` });
    }
  };
}

const dateWindow = {
  since: DateOnly.optional().describe('Inclusive start day (UTC), YYYY-MM-DD'),
  until: DateOnly.optional().describe('Inclusive end day (UTC), YYYY-MM-DD'),
};

const listPaging = {
  limit: limit(LIMITS.list).optional(),
  cursor: Cursor.optional(),
  order: Order.optional(),
};

const meetingFilter = { meeting_id: Id.optional().describe('Only records from this meeting') };

export const ListDecisionsInput = z
  .strictObject({
    deployment_id: DeploymentId,
    ...dateWindow,
    ...meetingFilter,
    ...listPaging,
  })
  .superRefine(untilNotBeforeSince);

export const ListOpenQuestionsInput = ListDecisionsInput;

export const ListActionItemsInput = z
  .strictObject({
    deployment_id: DeploymentId,
    status: ActionItemStatus.optional(),
    assignee_idp_id: Id.optional().describe('Only items assigned to this identity-provider object id'),
    ...dateWindow,
    ...meetingFilter,
    ...listPaging,
  })
  .superRefine(untilNotBeforeSince);

export const ListStatementsInput = ListDecisionsInput;

export const ListTopicsInput = z.strictObject({ deployment_id: DeploymentId, ...listPaging });

export const SearchMemoryInput = z
  .strictObject({
    deployment_id: DeploymentId,
    query: trimmed(LIMITS.query, 'query').describe('What to look for, in plain words'),
    types: z
      .array(z.enum(SEARCHABLE_TYPES))
      .min(1)
      .optional()
      .describe('Only these record types; default all five'),
    ...dateWindow,
    limit: limit(LIMITS.search).optional(),
    cursor: Cursor.optional(),
  })
  .superRefine(untilNotBeforeSince);

export const GetMeetingInput = z.strictObject({ deployment_id: DeploymentId, meeting_id: Id });
export const GetDecisionInput = z.strictObject({ deployment_id: DeploymentId, decision_id: Id });
export const GetOpenQuestionInput = z.strictObject({ deployment_id: DeploymentId, open_question_id: Id });
export const GetActionItemInput = z.strictObject({ deployment_id: DeploymentId, action_item_id: Id });
export const ListDeploymentsInput = z.strictObject({});

export const CreateActionItemInput = z.strictObject({
  deployment_id: DeploymentId,
  text: trimmed(LIMITS.text, 'text').describe('What is to be done, 1..4000 characters'),
  assignee_idp_id: Id.optional().describe('Identity-provider object id of the assignee'),
  due_date: DateOnly.optional(),
  meeting_id: Id.optional().describe('The meeting the item came from, in the same deployment'),
});

const note = trimmed(LIMITS.note, 'note').optional().describe('A note stored with the change, up to 4000 characters');
const clearNote = z.boolean().optional().describe('true removes the stored note');

const ACTION_ITEM_CHANGES = ['status', 'assignee_idp_id', 'due_date', 'clear_due_date'] as const;

export const UpdateActionItemInput = z
  .strictObject({
    deployment_id: DeploymentId,
    action_item_id: Id,
    status: ActionItemStatus.optional(),
    assignee_idp_id: Id.optional().describe('Reassign to this identity-provider object id'),
    due_date: DateOnly.optional(),
    clear_due_date: z.boolean().optional().describe('true removes the due date'),
  })
  .superRefine(exclusiveWithClear('due_date', 'clear_due_date'))
  .superRefine((input, ctx) => {
    const changes = ACTION_ITEM_CHANGES.filter((field) => input[field] !== undefined && input[field] !== false);
    if (changes.length === 0) {
      ctx.addIssue({ code: 'custom', path: [], message: `send at least one of ${ACTION_ITEM_CHANGES.join(', ')}` });
    }
  });

export const ResolveOpenQuestionInput = z
  .strictObject({
    deployment_id: DeploymentId,
    open_question_id: Id,
    status: OpenQuestionStatus.describe('resolved, or open to reopen'),
    note,
    clear_note: clearNote,
  })
  .superRefine(exclusiveWithClear('note', 'clear_note'));

export const UpdateDecisionInput = z
  .strictObject({
    deployment_id: DeploymentId,
    decision_id: Id,
    status: DecisionStatus,
    note,
    clear_note: clearNote,
  })
  .superRefine(exclusiveWithClear('note', 'clear_note'));

export type ListDecisionsInput = z.infer<typeof ListDecisionsInput>;
export type ListActionItemsInput = z.infer<typeof ListActionItemsInput>;
export type ListTopicsInput = z.infer<typeof ListTopicsInput>;
export type SearchMemoryInput = z.infer<typeof SearchMemoryInput>;
export type CreateActionItemInput = z.infer<typeof CreateActionItemInput>;
export type UpdateActionItemInput = z.infer<typeof UpdateActionItemInput>;
export type ResolveOpenQuestionInput = z.infer<typeof ResolveOpenQuestionInput>;
export type UpdateDecisionInput = z.infer<typeof UpdateDecisionInput>;
