import type { Attribution, Meeting } from '../../client/index.js';
import { when } from '../output/columns.js';
import { cleanCell } from '../output/terminal.js';
import type { TuiRecord } from './records.js';

/** `Priya Shah (participant)`, or the kind alone when there is no name. */
export function person(attribution: Attribution | null | undefined): string {
  if (!attribution) return '-';
  const name = attribution.display_name ? cleanCell(attribution.display_name) : undefined;
  return name ? `${name} (${attribution.kind})` : attribution.kind;
}

/** The one line a record gets in a list: status or kind, its date, its text. */
export function listLine(record: TuiRecord): { tag: string; date: string; text: string } {
  switch (record.type) {
    case 'decision':
      return { tag: record.status, date: when(record.decided_at), text: cleanCell(record.text) };
    case 'open_question':
      return { tag: record.status, date: when(record.raised_at), text: cleanCell(record.text) };
    case 'action_item':
      return { tag: record.status, date: record.due_date ? `due ${record.due_date}` : when(record.created_at), text: cleanCell(record.text) };
    case 'topic':
      return { tag: record.kind, date: when(record.last_discussed_at), text: cleanCell(record.name) };
    case 'meeting':
      return { tag: 'meeting', date: when(record.started_at), text: cleanCell(record.title) };
  }
}

const TYPE_NAMES: Record<TuiRecord['type'], string> = {
  decision: 'Decision',
  open_question: 'Open question',
  action_item: 'Action item',
  topic: 'Topic',
  meeting: 'Meeting',
};

/** The detail pane's heading, e.g. `Decision · confirmed`. */
export function detailTitle(record: TuiRecord): string {
  const state = 'status' in record ? ` · ${record.status}` : record.type === 'topic' ? ` · ${record.kind}` : '';
  return `${TYPE_NAMES[record.type]}${state}`;
}

/** The main text of a record. */
export function detailText(record: TuiRecord): string {
  if (record.type === 'topic') return cleanCell(record.name);
  if (record.type === 'meeting') return cleanCell(record.title);
  return cleanCell(record.text);
}

function meetingLine(meetingId: string | null, meeting: Meeting | undefined): string {
  if (meetingId === null) return '-';
  return meeting ? `${cleanCell(meeting.title)} (${when(meeting.started_at)}, ${meeting.platform})` : meetingId;
}

function changeRows(record: { updated_at: string | null; updated_by: Attribution | null; note?: string | null }): [string, string][] {
  const rows: [string, string][] = [];
  if (record.updated_at) rows.push(['Updated', `${when(record.updated_at)} by ${person(record.updated_by)}`]);
  if (record.note) rows.push(['Note', cleanCell(record.note)]);
  return rows;
}

/**
 * The labelled lines of the detail pane: who said or did it (attribution), the meeting it came from (with title once
 * `meeting` is loaded) and its timestamps, then the last change and its note.
 */
export function detailRows(record: TuiRecord, meeting?: Meeting): [string, string][] {
  switch (record.type) {
    case 'decision':
    case 'open_question': {
      const [label, at] = record.type === 'decision' ? ['Decided', record.decided_at] : ['Raised', record.raised_at];
      return [
        [label, `${when(at)} by ${person(record.attribution)}`],
        ['Meeting', meetingLine(record.meeting_id, meeting)],
        ['Created', when(record.created_at)],
        ...changeRows(record),
        ['ID', record.id],
      ];
    }
    case 'action_item':
      return [
        ['Assignee', person(record.assignee)],
        ['Due', record.due_date ?? '-'],
        ['Raised by', person(record.attribution)],
        ['Meeting', meetingLine(record.meeting_id, meeting)],
        ['Created', when(record.created_at)],
        ...changeRows(record),
        ['ID', record.id],
      ];
    case 'topic':
      return [
        ['Last discussed', when(record.last_discussed_at)],
        ['Meetings', record.meetings.map((ref) => `${cleanCell(ref.title)} (${when(ref.started_at)})`).join('; ') || '-'],
        ['Created', when(record.created_at)],
        ['ID', record.id],
      ];
    case 'meeting':
      return meeting
        ? [
            ['Started', `${when(meeting.started_at)} on ${meeting.platform}`],
            ['Ended', when(meeting.ended_at)],
            ['Participants', meeting.participants.map(person).join(', ') || '-'],
            [
              'Memory',
              `${meeting.memory.decision} decisions, ${meeting.memory.open_question} questions, ${meeting.memory.action_item} action items, ${meeting.memory.statement} statements`,
            ],
            ['ID', record.id],
          ]
        : [
            ['Started', when(record.started_at)],
            ['ID', record.id],
          ];
  }
}

/** The meeting a record belongs to, to load for its detail. */
export function meetingIdOf(record: TuiRecord | undefined): string | null {
  if (record === undefined || record.type === 'topic') return null;
  if (record.type === 'meeting') return record.id;
  return record.meeting_id;
}
