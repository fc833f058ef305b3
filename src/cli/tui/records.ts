import type { ActionItem, Decision, MemoryClient, OpenQuestion, Topic } from '../../client/index.js';

/** A meeting as the meetings tab lists it: from the topics that touched it (there is no list of meetings). */
export interface MeetingRow {
  type: 'meeting';
  id: string;
  title: string;
  started_at: string;
}

/** Anything a tab lists. */
export type TuiRecord = Decision | OpenQuestion | ActionItem | Topic | MeetingRow;

export type TabKey = 'decisions' | 'questions' | 'action-items' | 'topics' | 'meetings';

/** One tab: its label and the search type that narrows a query to it (the meetings tab filters titles locally). */
export interface TabSpec {
  key: TabKey;
  label: string;
  searchType?: 'decision' | 'open_question' | 'action_item' | 'topic';
}

export const TABS: readonly TabSpec[] = [
  { key: 'decisions', label: 'Decisions', searchType: 'decision' },
  { key: 'questions', label: 'Open questions', searchType: 'open_question' },
  { key: 'action-items', label: 'Action items', searchType: 'action_item' },
  { key: 'topics', label: 'Topics', searchType: 'topic' },
  { key: 'meetings', label: 'Meetings' },
];

/** How many records a tab shows: one page, as the list and search operations serve it. */
export const PAGE_SIZE = 50;

/** The meetings the deployment's topics reference, newest first, each once. */
async function meetingsOf(client: MemoryClient, deploymentId: string, signal?: AbortSignal): Promise<MeetingRow[]> {
  const { items } = await client.listTopics({ deployment_id: deploymentId, limit: 200 }, { signal });
  const byId = new Map<string, MeetingRow>();
  for (const topic of items) {
    for (const meeting of topic.meetings) {
      byId.set(meeting.meeting_id, { type: 'meeting', id: meeting.meeting_id, title: meeting.title, started_at: meeting.started_at });
    }
  }
  return [...byId.values()].sort((a, b) => b.started_at.localeCompare(a.started_at));
}

async function listTab(client: MemoryClient, deploymentId: string, tab: TabKey, signal?: AbortSignal): Promise<TuiRecord[]> {
  const input = { deployment_id: deploymentId, limit: PAGE_SIZE };
  switch (tab) {
    case 'decisions':
      return (await client.listDecisions(input, { signal })).items;
    case 'questions':
      return (await client.listOpenQuestions(input, { signal })).items;
    case 'action-items':
      return (await client.listActionItems(input, { signal })).items;
    case 'topics':
      return (await client.listTopics(input, { signal })).items;
    case 'meetings':
      return meetingsOf(client, deploymentId, signal);
  }
}

/**
 * A tab's records: one page of its list, or with a query, the search results of its type (meeting titles are
 * matched here, since search does not cover meetings).
 */
export async function loadTab(
  client: MemoryClient,
  deploymentId: string,
  tab: TabSpec,
  query: string,
  signal?: AbortSignal,
): Promise<TuiRecord[]> {
  const words = query.trim();
  if (words === '') return listTab(client, deploymentId, tab.key, signal);
  if (tab.searchType === undefined) {
    const lower = words.toLowerCase();
    return (await meetingsOf(client, deploymentId, signal)).filter((meeting) => meeting.title.toLowerCase().includes(lower));
  }
  const { results } = await client.searchMemory(
    { deployment_id: deploymentId, query: words, types: [tab.searchType], limit: PAGE_SIZE },
    { signal },
  );
  return results.map(({ score: _score, ...record }) => record) as TuiRecord[];
}

/** A change the TUI offers on a record, when the grant is read_write. */
export interface TuiAction {
  /** The key that starts it. */
  key: string;
  label: string;
  /** True when the change can carry a note (decisions and questions; action items have none). */
  takesNote: boolean;
  appliesTo(record: TuiRecord): boolean;
  run(client: MemoryClient, deploymentId: string, record: TuiRecord, note?: string): Promise<TuiRecord>;
}

const withNote = (note: string | undefined) => (note && note.trim() !== '' ? { note: note.trim() } : {});

/** Every action, by record type. */
export const ACTIONS: readonly TuiAction[] = [
  {
    key: 'c',
    label: 'Confirm decision',
    takesNote: true,
    appliesTo: (record) => record.type === 'decision' && record.status !== 'confirmed',
    run: (client, deploymentId, record, note) =>
      client.updateDecision({ deployment_id: deploymentId, decision_id: record.id, status: 'confirmed', ...withNote(note) }),
  },
  {
    key: 's',
    label: 'Supersede decision',
    takesNote: true,
    appliesTo: (record) => record.type === 'decision' && record.status !== 'superseded',
    run: (client, deploymentId, record, note) =>
      client.updateDecision({ deployment_id: deploymentId, decision_id: record.id, status: 'superseded', ...withNote(note) }),
  },
  {
    key: 'r',
    label: 'Resolve question',
    takesNote: true,
    appliesTo: (record) => record.type === 'open_question' && record.status === 'open',
    run: (client, deploymentId, record, note) =>
      client.resolveOpenQuestion({ deployment_id: deploymentId, open_question_id: record.id, status: 'resolved', ...withNote(note) }),
  },
  {
    key: 'o',
    label: 'Reopen question',
    takesNote: true,
    appliesTo: (record) => record.type === 'open_question' && record.status === 'resolved',
    run: (client, deploymentId, record, note) =>
      client.resolveOpenQuestion({ deployment_id: deploymentId, open_question_id: record.id, status: 'open', ...withNote(note) }),
  },
  {
    key: 'x',
    label: 'Mark action item done',
    takesNote: false,
    appliesTo: (record) => record.type === 'action_item' && record.status === 'open',
    run: (client, deploymentId, record) =>
      client.updateActionItem({ deployment_id: deploymentId, action_item_id: record.id, status: 'done' }),
  },
  {
    key: 'o',
    label: 'Reopen action item',
    takesNote: false,
    appliesTo: (record) => record.type === 'action_item' && record.status === 'done',
    run: (client, deploymentId, record) =>
      client.updateActionItem({ deployment_id: deploymentId, action_item_id: record.id, status: 'open' }),
  },
];

/** The actions that apply to a record now. */
export function actionsFor(record: TuiRecord | undefined): TuiAction[] {
  return record === undefined ? [] : ACTIONS.filter((action) => action.appliesTo(record));
}
