import { z } from 'zod';
import * as P from './params.js';
import {
  ActionItem,
  Decision,
  Deployment,
  Meeting,
  OpenQuestion,
  SearchEnvelope,
  Statement,
  Topic,
  listEnvelope,
} from './records.js';

/** `read` needs any grant on the deployment; `write` needs a read_write grant. */
export type OperationAccess = 'read' | 'write';
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * One operation of the memory API. Its `input` is the flat argument object an MCP tool takes; on REST the
 * fields named in `path` come from the path, and the rest from the query (GET) or the JSON body (POST/PATCH).
 */
export interface Operation<
  N extends string = string,
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodType = z.ZodType,
> {
  name: N;
  title: string;
  description: string;
  method: HttpMethod;
  /** REST path under `/v1`, with `{param}` placeholders. */
  path: string;
  /** The MCP tool name, or null for operations served only over REST (and as MCP resources). */
  mcpTool: string | null;
  access: OperationAccess;
  input: I;
  output: O;
  /** Input field name -> REST name where they differ (search: `query` is `q` on REST). */
  restNames?: Record<string, string>;
  successStatus: 200 | 201;
  /** True when calling it twice with the same arguments leaves memory as one call would. */
  idempotent: boolean;
  /**
   * Set when the request body is a file streamed as it is (a transcript), not a JSON object of input fields: every
   * non-path field then comes from the query string, and the body may be as large as `maxBytes`.
   */
  upload?: { contentTypes: readonly string[]; maxBytes: number };
}

function operation<const N extends string, I extends z.ZodObject, O extends z.ZodType>(
  op: Operation<N, I, O>,
): Operation<N, I, O> {
  return op;
}

const SINCE_UNTIL_HELP = 'Filter with since/until (inclusive UTC days) and page with cursor.';

export const listDeployments = operation({
  name: 'listDeployments',
  title: 'List deployments',
  description:
    'The named teammates (deployments) this caller may reach, with the access level of each grant (read or read_write). Call it first to learn the deployment_id every other tool takes.',
  method: 'GET',
  path: '/deployments',
  mcpTool: 'listDeployments',
  access: 'read',
  input: P.ListDeploymentsInput,
  output: z.object({ items: z.array(Deployment) }),
  successStatus: 200,
  idempotent: true,
});

export const listDecisions = operation({
  name: 'listDecisions',
  title: 'List decisions',
  description: `Decisions made across meetings of a deployment, newest first, each with status confirmed or superseded. ${SINCE_UNTIL_HELP}`,
  method: 'GET',
  path: '/deployments/{deployment_id}/decisions',
  mcpTool: 'listDecisions',
  access: 'read',
  input: P.ListDecisionsInput,
  output: listEnvelope(Decision),
  successStatus: 200,
  idempotent: true,
});

export const listOpenQuestions = operation({
  name: 'listOpenQuestions',
  title: 'List open questions',
  description: `Questions raised in meetings, resolved or not, each with status open or resolved, newest first. ${SINCE_UNTIL_HELP}`,
  method: 'GET',
  path: '/deployments/{deployment_id}/open-questions',
  mcpTool: 'listOpenQuestions',
  access: 'read',
  input: P.ListOpenQuestionsInput,
  output: listEnvelope(OpenQuestion),
  successStatus: 200,
  idempotent: true,
});

export const listActionItems = operation({
  name: 'listActionItems',
  title: 'List action items',
  description: `Action items (promises) with their assignees and due dates, newest first; filter by status (open or done) or assignee. ${SINCE_UNTIL_HELP}`,
  method: 'GET',
  path: '/deployments/{deployment_id}/action-items',
  mcpTool: 'listActionItems',
  access: 'read',
  input: P.ListActionItemsInput,
  output: listEnvelope(ActionItem),
  successStatus: 200,
  idempotent: true,
});

export const listStatements = operation({
  name: 'listStatements',
  title: 'List statements',
  description: `Attributed statements (what was said, by whom, when). High volume: scope by meeting_id or since/until; order=asc gives transcript order. ${SINCE_UNTIL_HELP}`,
  method: 'GET',
  path: '/deployments/{deployment_id}/statements',
  mcpTool: 'listStatements',
  access: 'read',
  input: P.ListStatementsInput,
  output: listEnvelope(Statement),
  successStatus: 200,
  idempotent: true,
});

export const listTopics = operation({
  name: 'listTopics',
  title: 'List topics',
  description: 'Topics (accounts, projects, themes) with the meetings that touched each, most recently discussed first.',
  method: 'GET',
  path: '/deployments/{deployment_id}/topics',
  mcpTool: 'listTopics',
  access: 'read',
  input: P.ListTopicsInput,
  output: listEnvelope(Topic),
  successStatus: 200,
  idempotent: true,
});

export const searchMemory = operation({
  name: 'searchMemory',
  title: 'Search memory',
  description:
    'Search every record type of a deployment (decisions, open questions, action items, statements, topics) by meaning and keywords; results in relevance order with a score in (0, 1]. Narrow with types and since/until.',
  method: 'GET',
  path: '/deployments/{deployment_id}/search',
  mcpTool: 'searchMemory',
  access: 'read',
  input: P.SearchMemoryInput,
  output: SearchEnvelope,
  restNames: { query: 'q' },
  successStatus: 200,
  idempotent: true,
});

export const getMeeting = operation({
  name: 'getMeeting',
  title: 'Get a meeting',
  description: "One meeting's canonical record: title, times, participants and a count of its memory per record type.",
  method: 'GET',
  path: '/deployments/{deployment_id}/meetings/{meeting_id}',
  mcpTool: 'getMeeting',
  access: 'read',
  input: P.GetMeetingInput,
  output: Meeting,
  successStatus: 200,
  idempotent: true,
});

export const getDecision = operation({
  name: 'getDecision',
  title: 'Get a decision',
  description: 'One decision, for reading back after a change.',
  method: 'GET',
  path: '/deployments/{deployment_id}/decisions/{decision_id}',
  mcpTool: null,
  access: 'read',
  input: P.GetDecisionInput,
  output: Decision,
  successStatus: 200,
  idempotent: true,
});

export const getOpenQuestion = operation({
  name: 'getOpenQuestion',
  title: 'Get an open question',
  description: 'One open question, for reading back after a change.',
  method: 'GET',
  path: '/deployments/{deployment_id}/open-questions/{open_question_id}',
  mcpTool: null,
  access: 'read',
  input: P.GetOpenQuestionInput,
  output: OpenQuestion,
  successStatus: 200,
  idempotent: true,
});

export const getActionItem = operation({
  name: 'getActionItem',
  title: 'Get an action item',
  description: 'One action item, for reading back after a change.',
  method: 'GET',
  path: '/deployments/{deployment_id}/action-items/{action_item_id}',
  mcpTool: null,
  access: 'read',
  input: P.GetActionItemInput,
  output: ActionItem,
  successStatus: 200,
  idempotent: true,
});

export const createActionItem = operation({
  name: 'createActionItem',
  title: 'Create an action item',
  description:
    'Record a new action item (status open) in a deployment, optionally assigned (assignee_idp_id from an attribution idp_id), with a due date and the meeting it came from. Needs a read_write grant.',
  method: 'POST',
  path: '/deployments/{deployment_id}/action-items',
  mcpTool: 'createActionItem',
  access: 'write',
  input: P.CreateActionItemInput,
  output: ActionItem,
  successStatus: 201,
  idempotent: false,
});

export const updateActionItem = operation({
  name: 'updateActionItem',
  title: 'Update an action item',
  description:
    'Mark an action item done or open again, reassign it, or set or clear its due date (due_date and clear_due_date are exclusive). Returns the updated record. Needs a read_write grant.',
  method: 'PATCH',
  path: '/deployments/{deployment_id}/action-items/{action_item_id}',
  mcpTool: 'updateActionItem',
  access: 'write',
  input: P.UpdateActionItemInput,
  output: ActionItem,
  successStatus: 200,
  idempotent: true,
});

export const resolveOpenQuestion = operation({
  name: 'resolveOpenQuestion',
  title: 'Resolve or reopen an open question',
  description:
    'Set an open question to resolved (or open, to reopen it), optionally storing a note (note and clear_note are exclusive). Returns the updated record. Needs a read_write grant.',
  method: 'PATCH',
  path: '/deployments/{deployment_id}/open-questions/{open_question_id}',
  mcpTool: 'resolveOpenQuestion',
  access: 'write',
  input: P.ResolveOpenQuestionInput,
  output: OpenQuestion,
  successStatus: 200,
  idempotent: true,
});

export const updateDecision = operation({
  name: 'updateDecision',
  title: 'Confirm or supersede a decision',
  description:
    'Set a decision to confirmed or superseded, optionally storing a note (note and clear_note are exclusive). Returns the updated record. Needs a read_write grant.',
  method: 'PATCH',
  path: '/deployments/{deployment_id}/decisions/{decision_id}',
  mcpTool: 'updateDecision',
  access: 'write',
  input: P.UpdateDecisionInput,
  output: Decision,
  successStatus: 200,
  idempotent: true,
});

/** Every operation of the memory API, in the order the contract lists them. */
export const OPERATIONS = [
  listDeployments,
  listDecisions,
  listOpenQuestions,
  listActionItems,
  listStatements,
  listTopics,
  searchMemory,
  getMeeting,
  getDecision,
  getOpenQuestion,
  getActionItem,
  createActionItem,
  updateActionItem,
  resolveOpenQuestion,
  updateDecision,
] as const;

export type AnyOperation = (typeof OPERATIONS)[number];
export type OperationName = AnyOperation['name'];
export type OperationInput<N extends OperationName> = z.infer<Extract<AnyOperation, { name: N }>['input']>;
export type OperationOutput<N extends OperationName> = z.infer<Extract<AnyOperation, { name: N }>['output']>;

const PATH_PARAMS = new Map<string, readonly string[]>();

/** The names of `{param}` placeholders in an operation's REST path (worked out once per path: every call asks). */
export function pathParams(op: Pick<Operation, 'path'>): readonly string[] {
  let names = PATH_PARAMS.get(op.path);
  if (names === undefined) {
    names = Object.freeze([...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!));
    PATH_PARAMS.set(op.path, names);
  }
  return names;
}

const OPERATIONS_BY_NAME = new Map<string, AnyOperation>(OPERATIONS.map((op) => [op.name, op]));

/** Looks an operation up by name; throws on a name the table does not hold (a bug, not user input). */
export function operationByName(name: string): AnyOperation {
  const found = OPERATIONS_BY_NAME.get(name);
  if (!found) throw new Error(`unknown operation ${name}`);
  return found;
}
