import type { AdminOperationInput } from '../../contract/admin-operations.js';
import { IMPORT_MAX_BYTES } from '../../contract/admin-operations.js';
import type { Deployment } from '../../contract/index.js';
import { importMeetingJson } from '../ingest/json-import.js';
import { importWebVtt, type ImportOutcome } from '../ingest/vtt-import.js';
import type { CallContext, OperationResult } from '../server/operation-handlers.js';
import { invalidRequest } from '../server/problem.js';
import type { Scope, Store } from '../store/store.js';

type ImportInput = AdminOperationInput<'importMeeting'>;
const TRANSCRIPT_FIELDS = ['title', 'started_at', 'ended_at', 'platform', 'organizer', 'external_id'] as const;

/** A transcript says nothing about its meeting: title and start come with it; the end may not precede the start. */
function transcriptMeta(input: ImportInput, platform: Deployment['platform']) {
  const missing = (['title', 'started_at'] as const).filter((field) => input[field] === undefined);
  if (missing.length > 0) {
    throw invalidRequest(missing.map((name) => ({ name, in: 'query' as const, reason: 'required for a WebVTT transcript' })));
  }
  if (input.ended_at !== undefined && input.ended_at < input.started_at!) {
    throw invalidRequest([{ name: 'ended_at', in: 'query', reason: 'must not be before started_at' }]);
  }
  return {
    title: input.title!,
    startedAt: input.started_at!,
    endedAt: input.ended_at,
    platform: input.platform ?? platform,
    organizer: input.organizer,
    externalId: input.external_id,
  };
}

/** A JSON document carries its own meeting fields; the query's would be ambiguous, so they are refused. */
function refuseTranscriptFields(input: ImportInput): void {
  const given = TRANSCRIPT_FIELDS.filter((field) => input[field] !== undefined);
  if (given.length > 0) {
    throw invalidRequest(given.map((name) => ({ name, in: 'query' as const, reason: 'only for WebVTT; a JSON document carries its own' })));
  }
}

/**
 * Imports the uploaded file into the deployment by its content type (text/vtt or application/json) and answers
 * the meeting: 201 with its Location when it is new, 200 when the same meeting was imported before.
 */
export async function importUpload(
  store: Store,
  scope: Scope,
  platform: Deployment['platform'],
  input: ImportInput,
  upload: NonNullable<CallContext['upload']>,
): Promise<OperationResult> {
  let outcome: ImportOutcome;
  if (upload.contentType === 'text/vtt') {
    outcome = await importWebVtt(store, scope, upload.body, transcriptMeta(input, platform), IMPORT_MAX_BYTES);
  } else {
    refuseTranscriptFields(input);
    outcome = await importMeetingJson(store, scope, upload.body, platform);
  }
  const meeting = await store.getMeeting(scope, outcome.meetingId);
  const body = { type: 'meeting_import', created: outcome.created, external_id: outcome.externalId, meeting };
  if (!outcome.created) return { status: 200, body };
  return {
    status: 201,
    body,
    createdId: outcome.meetingId,
    location: `/v1/deployments/${encodeURIComponent(scope.deploymentId)}/meetings/${encodeURIComponent(outcome.meetingId)}`,
  };
}
