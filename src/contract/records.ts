import { z } from 'zod';

/** Record kinds, as they appear in every record's `type` field. */
export const RECORD_TYPES = [
  'decision',
  'open_question',
  'action_item',
  'statement',
  'topic',
  'meeting',
  'deployment',
] as const;

/** The kinds the `types` filter of search accepts. */
export const SEARCHABLE_TYPES = ['decision', 'open_question', 'action_item', 'statement', 'topic'] as const;
export type SearchableType = (typeof SEARCHABLE_TYPES)[number];

/**
 * The timestamp each kind is ordered and date-filtered by. Lists are newest first on this field, then id.
 */
export const TIMESTAMP_FIELD = {
  decision: 'decided_at',
  open_question: 'raised_at',
  action_item: 'created_at',
  statement: 'spoken_at',
  topic: 'last_discussed_at',
  meeting: 'started_at',
} as const;

const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** `YYYY-MM-DDThh:mm:ssZ`, UTC, no fractions. */
export const Timestamp = z.string().regex(TIMESTAMP_PATTERN).describe('UTC timestamp, YYYY-MM-DDThh:mm:ssZ');

function isCalendarDate(value: string): boolean {
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

/** `YYYY-MM-DD`, a real calendar day. */
export const DateOnly = z
  .string()
  .regex(DATE_PATTERN, 'must be a date in the form YYYY-MM-DD')
  .refine(isCalendarDate, 'must be a real calendar date')
  .describe('Date, YYYY-MM-DD');

export const AttributionKind = z.enum(['platform_identity', 'anonymous', 'service_principal']);

/** Who said, raised or changed something. `anonymous` carries neither name nor id. */
export const Attribution = z.object({
  kind: AttributionKind,
  display_name: z.string().optional(),
  idp_id: z.string().optional().describe('Identity-provider object id; pass it back as assignee_idp_id'),
});
export type Attribution = z.infer<typeof Attribution>;

export const DecisionStatus = z.enum(['confirmed', 'superseded']);
export const OpenQuestionStatus = z.enum(['open', 'resolved']);
export const ActionItemStatus = z.enum(['open', 'done']);
export const Platform = z.enum(['teams', 'zoom', 'meet', 'webex']);
export const Access = z.enum(['read', 'read_write']);
export type Access = z.infer<typeof Access>;
export const TopicKind = z.enum(['account', 'project', 'theme']);

const common = {
  id: z.string(),
  deployment_id: z.string(),
  attribution: Attribution,
  created_at: Timestamp,
};

const workflowChange = {
  note: z.string().nullable(),
  updated_at: Timestamp.nullable(),
  updated_by: Attribution.nullable(),
};

export const Decision = z.object({
  ...common,
  type: z.literal('decision'),
  meeting_id: z.string(),
  text: z.string(),
  decided_at: Timestamp,
  status: DecisionStatus,
  ...workflowChange,
});
export type Decision = z.infer<typeof Decision>;

export const OpenQuestion = z.object({
  ...common,
  type: z.literal('open_question'),
  meeting_id: z.string(),
  text: z.string(),
  raised_at: Timestamp,
  status: OpenQuestionStatus,
  ...workflowChange,
});
export type OpenQuestion = z.infer<typeof OpenQuestion>;

export const ActionItem = z.object({
  ...common,
  type: z.literal('action_item'),
  meeting_id: z.string().nullable(),
  text: z.string(),
  status: ActionItemStatus,
  assignee: Attribution.nullable(),
  due_date: DateOnly.nullable(),
  updated_at: Timestamp.nullable(),
  updated_by: Attribution.nullable(),
});
export type ActionItem = z.infer<typeof ActionItem>;

export const Statement = z.object({
  ...common,
  type: z.literal('statement'),
  meeting_id: z.string(),
  text: z.string(),
  spoken_at: Timestamp,
});
export type Statement = z.infer<typeof Statement>;

export const MeetingRef = z.object({ meeting_id: z.string(), title: z.string(), started_at: Timestamp });

export const Topic = z.object({
  ...common,
  type: z.literal('topic'),
  name: z.string(),
  kind: TopicKind,
  last_discussed_at: Timestamp,
  meetings: z.array(MeetingRef),
});
export type Topic = z.infer<typeof Topic>;

export const MemoryCounts = z.object({
  decision: z.number().int(),
  open_question: z.number().int(),
  action_item: z.number().int(),
  statement: z.number().int(),
  topic: z.number().int(),
});

export const Meeting = z.object({
  ...common,
  type: z.literal('meeting'),
  title: z.string(),
  platform: Platform,
  started_at: Timestamp,
  ended_at: Timestamp.nullable(),
  participants: z.array(Attribution),
  memory: MemoryCounts,
});
export type Meeting = z.infer<typeof Meeting>;

export const Deployment = z.object({
  id: z.string(),
  type: z.literal('deployment'),
  name: z.string(),
  platform: Platform,
  voice: z.string(),
  avatar_url: z.string().nullable(),
  created_at: Timestamp,
  access: Access.describe("This caller's grant on the deployment"),
});
export type Deployment = z.infer<typeof Deployment>;

const score = { score: z.number().gt(0).lte(1).describe('Relevance in (0, 1], higher is more relevant') };

/** A search hit: the full record plus `score`; topics also carry `text` (their name) and the latest `meeting_id`. */
export const SearchResult = z.discriminatedUnion('type', [
  Decision.extend(score),
  OpenQuestion.extend(score),
  ActionItem.extend(score),
  Statement.extend(score),
  Topic.extend({ ...score, text: z.string(), meeting_id: z.string().nullable() }),
]);
export type SearchResult = z.infer<typeof SearchResult>;

/** The envelope of every list: one page of items and the cursor of the next (null on the last page). */
export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}

export const SearchEnvelope = z.object({
  results: z.array(SearchResult),
  next_cursor: z.string().nullable(),
  was_capped: z
    .boolean()
    .describe('True when more records matched than search considers; paging will not reach them all: narrow the query'),
});
export type SearchEnvelope = z.infer<typeof SearchEnvelope>;

export type WorkflowRecord = Decision | OpenQuestion | ActionItem;
export type ListableRecord = Decision | OpenQuestion | ActionItem | Statement | Topic;
