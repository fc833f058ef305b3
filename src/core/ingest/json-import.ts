import { createHash } from 'node:crypto';
import type { Attribution, Deployment } from '../../contract/index.js';
import { MeetingDocumentInput, type PersonRef } from '../../contract/admin-meeting-document.js';
import { toInvalidParams } from '../server/invalid-params.js';
import { invalidRequest } from '../server/problem.js';
import type { MeetingDocument, Scope, Store } from '../store/store.js';
import { malformed, tooLarge } from './malformed.js';
import { meetingDocument } from './meeting-document.js';
import { createOrderedIds } from './ordered-ids.js';
import { SpeakerDirectory, SpeakerLimitError } from './speakers.js';
import type { ImportOutcome } from './vtt-import.js';

/**
 * A JSON document is parsed whole, so it has a cap of its own, far under the streamed transcripts' cap: a meeting
 * document of this size already holds about a hundred thousand statements.
 */
export const JSON_DOCUMENT_MAX_BYTES = 32 * 1024 * 1024;

async function readCapped(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** The line a JSON syntax error is on, from the position V8 names in its message. */
function lineOfSyntaxError(text: string, error: SyntaxError): number {
  const position = /position (\d+)/.exec(error.message);
  if (!position) return 1;
  return text.slice(0, Number(position[1])).split('\n').length;
}

function parseJson(raw: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw malformed(1, 'the file is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = (error as SyntaxError).message.replace(/ in JSON at position \d+.*$/, '');
    throw malformed(lineOfSyntaxError(text, error as SyntaxError), `not valid JSON (${reason})`);
  }
}

/** Maps the document's people (by name, id or both) to attributions, and its records to the store's document. */
async function toMeetingDocument(
  input: MeetingDocumentInput,
  speakers: SpeakerDirectory,
  defaults: { externalId: string; platform: Deployment['platform'] },
): Promise<MeetingDocument> {
  const person = (ref: PersonRef | null | undefined): Promise<Attribution> =>
    ref === undefined || ref === null || ref.kind === 'anonymous'
      ? Promise.resolve({ kind: 'anonymous' })
      : speakers.resolve({ name: ref.display_name, idpId: ref.idp_id });
  const ids = createOrderedIds();
  const { meeting } = input;
  const organizer = await person(meeting.organizer);
  const participants: Attribution[] = [];
  for (const ref of input.participants) participants.push(await person(ref));
  const doc = meetingDocument(
    {
      externalId: meeting.external_id ?? defaults.externalId,
      title: meeting.title,
      platform: meeting.platform ?? defaults.platform,
      startedAt: meeting.started_at,
      endedAt: meeting.ended_at ?? null,
      organizer,
    },
    participants,
  );
  for (const s of input.statements) {
    doc.statements.push({ id: ids(), attribution: await person(s.attribution), text: s.text, spokenAt: s.spoken_at });
  }
  for (const d of input.decisions) {
    doc.decisions.push({ attribution: await person(d.attribution), text: d.text, decidedAt: d.decided_at, status: d.status });
  }
  for (const q of input.open_questions) {
    doc.openQuestions.push({ attribution: await person(q.attribution), text: q.text, raisedAt: q.raised_at, status: q.status });
  }
  for (const a of input.action_items) {
    doc.actionItems.push({
      attribution: await person(a.attribution),
      text: a.text,
      createdAt: a.created_at,
      assignee: a.assignee === undefined || a.assignee === null ? null : await person(a.assignee),
      dueDate: a.due_date ?? null,
      status: a.status,
    });
  }
  for (const t of input.topics) doc.topics.push({ name: t.name, kind: t.kind, attribution: await person(t.attribution) });
  return doc;
}

/**
 * Imports a JSON meeting document (the v1 record fields, snake_case; see MeetingDocumentInput) in one transaction.
 * A syntax error is refused with its line, a schema error with the path of each bad field (`statements.3.text`).
 * Without `meeting.external_id`, the SHA-256 of the file identifies the meeting, so a re-import changes nothing.
 */
export async function importMeetingJson(
  store: Store,
  scope: Scope,
  body: AsyncIterable<Uint8Array>,
  platform: Deployment['platform'],
): Promise<ImportOutcome> {
  const raw = await readCapped(body, JSON_DOCUMENT_MAX_BYTES);
  const parsed = MeetingDocumentInput.safeParse(parseJson(raw));
  if (!parsed.success) {
    const params = toInvalidParams(parsed.error.issues, (field) => ({ name: field, in: 'body' }), 'body');
    throw invalidRequest(params, 'The meeting document does not match the schema. Nothing of it was imported.');
  }
  const externalId = `json-sha256:${createHash('sha256').update(raw).digest('hex')}`;
  let doc: MeetingDocument;
  try {
    doc = await toMeetingDocument(parsed.data, new SpeakerDirectory(store, scope.tenantId), { externalId, platform });
  } catch (error) {
    if (error instanceof SpeakerLimitError) throw invalidRequest([{ name: 'body', in: 'body', reason: error.message }]);
    throw error;
  }
  const { meetingId, created } = await store.importMeeting(scope, doc);
  return { meetingId, created, externalId: doc.meeting.externalId };
}
