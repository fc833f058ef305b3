import type { OperationName } from '../../contract/index.js';

/**
 * One `memory <noun> <verb>` command (or `memory admin <noun> <verb>`, over the admin table): which operation it
 * runs, which input fields it takes as positional arguments (in order), and which fields the verb fixes (`decisions
 * confirm` is updateDecision with status confirmed). Every other input field becomes a flag derived from the
 * operation's zod schema.
 */
export interface CommandSpec<Op extends string = OperationName> {
  noun: string;
  /** Undefined for a noun that is itself the command (`memory search <query>`). */
  verb?: string;
  op: Op;
  summary: string;
  args?: readonly string[];
  fixed?: Readonly<Record<string, string>>;
  /** Told on stderr after a change succeeds. */
  done?: string;
}

/** The nouns, in the order `memory --help` lists them. Kept free of zod so registering them costs nothing. */
export const NOUNS: Readonly<Record<string, string>> = {
  deployments: 'Named teammates (deployments) you can reach, with your access level',
  decisions: 'Decisions made in meetings: list, show, confirm or supersede',
  questions: 'Open questions raised in meetings: list, show, resolve or reopen',
  'action-items': 'Action items: list, show, create, update, mark done or reopen',
  statements: 'Attributed statements: who said what, when',
  topics: 'Topics (accounts, projects, themes) and the meetings that touched them',
  meetings: 'One meeting: participants and a count of its memory',
  search: 'Search every kind of memory by meaning and keywords',
};

/** Every memory command. */
export const COMMANDS: readonly CommandSpec[] = [
  { noun: 'deployments', verb: 'list', op: 'listDeployments', summary: 'List the deployments you can reach' },
  { noun: 'decisions', verb: 'list', op: 'listDecisions', summary: 'List decisions, newest first' },
  { noun: 'decisions', verb: 'get', op: 'getDecision', args: ['decision_id'], summary: 'Show one decision' },
  {
    noun: 'decisions',
    verb: 'confirm',
    op: 'updateDecision',
    args: ['decision_id'],
    fixed: { status: 'confirmed' },
    summary: 'Mark a decision confirmed',
    done: 'Decision confirmed.',
  },
  {
    noun: 'decisions',
    verb: 'supersede',
    op: 'updateDecision',
    args: ['decision_id'],
    fixed: { status: 'superseded' },
    summary: 'Mark a decision superseded',
    done: 'Decision superseded.',
  },
  { noun: 'questions', verb: 'list', op: 'listOpenQuestions', summary: 'List open questions, newest first' },
  { noun: 'questions', verb: 'get', op: 'getOpenQuestion', args: ['open_question_id'], summary: 'Show one open question' },
  {
    noun: 'questions',
    verb: 'resolve',
    op: 'resolveOpenQuestion',
    args: ['open_question_id'],
    fixed: { status: 'resolved' },
    summary: 'Mark an open question resolved',
    done: 'Question resolved.',
  },
  {
    noun: 'questions',
    verb: 'reopen',
    op: 'resolveOpenQuestion',
    args: ['open_question_id'],
    fixed: { status: 'open' },
    summary: 'Reopen a resolved question',
    done: 'Question reopened.',
  },
  { noun: 'action-items', verb: 'list', op: 'listActionItems', summary: 'List action items, newest first' },
  { noun: 'action-items', verb: 'get', op: 'getActionItem', args: ['action_item_id'], summary: 'Show one action item' },
  {
    noun: 'action-items',
    verb: 'create',
    op: 'createActionItem',
    args: ['text'],
    summary: 'Create an action item',
    done: 'Action item created.',
  },
  {
    noun: 'action-items',
    verb: 'update',
    op: 'updateActionItem',
    args: ['action_item_id'],
    summary: 'Change status, assignee or due date of an action item',
    done: 'Action item updated.',
  },
  {
    noun: 'action-items',
    verb: 'done',
    op: 'updateActionItem',
    args: ['action_item_id'],
    fixed: { status: 'done' },
    summary: 'Mark an action item done',
    done: 'Action item done.',
  },
  {
    noun: 'action-items',
    verb: 'reopen',
    op: 'updateActionItem',
    args: ['action_item_id'],
    fixed: { status: 'open' },
    summary: 'Reopen an action item',
    done: 'Action item reopened.',
  },
  { noun: 'statements', verb: 'list', op: 'listStatements', summary: 'List statements (scope with --meeting-id or --since)' },
  { noun: 'topics', verb: 'list', op: 'listTopics', summary: 'List topics, most recently discussed first' },
  { noun: 'meetings', verb: 'get', op: 'getMeeting', args: ['meeting_id'], summary: 'Show one meeting' },
  { noun: 'search', op: 'searchMemory', args: ['query'], summary: 'Search every kind of memory' },
];

/** The commands of one noun. */
export function commandsOf(noun: string): CommandSpec[] {
  return COMMANDS.filter((spec) => spec.noun === noun);
}
