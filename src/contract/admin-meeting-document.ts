import { z } from 'zod';
import { ADMIN_LIMITS } from './admin-params.js';
import {
  ActionItemStatus,
  DateOnly,
  DecisionStatus,
  OpenQuestionStatus,
  Platform,
  Timestamp,
  TopicKind,
} from './records.js';
import { Id, LIMITS } from './params.js';

/** Longest statement text an import takes; a transcript cue is far shorter. */
export const STATEMENT_TEXT_MAX = 20000;

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/**
 * A person in an imported document. An identified person needs a name or an identity-provider id; with a name
 * only, the core maps the name to an id (the tenant's people mapping, else a stable id made from the name).
 */
export const PersonRef = z.discriminatedUnion('kind', [
  z
    .strictObject({
      kind: z.literal('platform_identity'),
      display_name: text(ADMIN_LIMITS.name).optional(),
      idp_id: Id.optional(),
    })
    .refine((person) => person.display_name !== undefined || person.idp_id !== undefined, {
      message: 'a platform_identity needs display_name or idp_id',
    }),
  z.strictObject({ kind: z.literal('anonymous') }),
]);
export type PersonRef = z.infer<typeof PersonRef>;

/**
 * One meeting with everything said and recorded in it, as `memory admin import` takes it in a `.json` file:
 * the v1 record fields, snake_case. Lists may be left out. `external_id` makes a re-import change nothing; without
 * it a hash of the file's bytes stands in.
 */
export const MeetingDocumentInput = z.strictObject({
  meeting: z
    .strictObject({
      external_id: text(ADMIN_LIMITS.externalId).optional(),
      title: text(ADMIN_LIMITS.name),
      platform: Platform.optional().describe("Default: the deployment's platform"),
      started_at: Timestamp,
      ended_at: Timestamp.nullable().optional(),
      organizer: PersonRef.optional().describe('Default: anonymous'),
    })
    .refine((meeting) => !meeting.ended_at || meeting.ended_at >= meeting.started_at, {
      path: ['ended_at'],
      message: 'must not be before started_at',
    }),
  participants: z.array(PersonRef).default([]),
  statements: z
    .array(z.strictObject({ attribution: PersonRef, text: text(STATEMENT_TEXT_MAX), spoken_at: Timestamp }))
    .default([]),
  decisions: z
    .array(
      z.strictObject({
        attribution: PersonRef,
        text: text(LIMITS.text),
        decided_at: Timestamp,
        status: DecisionStatus.optional(),
      }),
    )
    .default([]),
  open_questions: z
    .array(
      z.strictObject({
        attribution: PersonRef,
        text: text(LIMITS.text),
        raised_at: Timestamp,
        status: OpenQuestionStatus.optional(),
      }),
    )
    .default([]),
  action_items: z
    .array(
      z.strictObject({
        attribution: PersonRef,
        text: text(LIMITS.text),
        created_at: Timestamp,
        assignee: PersonRef.nullable().optional(),
        due_date: DateOnly.nullable().optional(),
        status: ActionItemStatus.optional(),
      }),
    )
    .default([]),
  topics: z
    .array(z.strictObject({ name: text(ADMIN_LIMITS.name), kind: TopicKind, attribution: PersonRef }))
    .default([]),
});
export type MeetingDocumentInput = z.infer<typeof MeetingDocumentInput>;
