import type { Attribution } from '../../contract/index.js';
import type { MeetingDocument } from '../store/store.js';

/** A meeting document with its people and nothing recorded yet; importers fill in what their source holds. */
export function meetingDocument(meeting: MeetingDocument['meeting'], participants: Attribution[]): MeetingDocument {
  return { meeting, participants, statements: [], decisions: [], openQuestions: [], actionItems: [], topics: [] };
}
