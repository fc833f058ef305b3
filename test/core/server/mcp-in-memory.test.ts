import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionItem, Decision, Meeting, SearchEnvelope, listEnvelope } from '../../../src/contract/index.js';
import type { Caller } from '../../../src/core/access/index.js';
import type { CallRecord } from '../../../src/core/server/call-record.js';
import { CursorCodec } from '../../../src/core/server/cursor.js';
import { createCoreMcpServer, type McpCallScope } from '../../../src/core/server/mcp-http.js';
import { createOperationExecutor } from '../../../src/core/server/operation-handlers.js';
import { startDemoCore, type TestCore } from '../../helpers/core.js';
import { toolProblem } from '../../mcp/helpers.js';

let t: TestCore;
let dep1: string;

/** The caller a demo principal's token names, as the verifier would derive it. */
async function callerOf(principal: number): Promise<Caller> {
  const token = await t.token(principal);
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, string>;
  return { tenantId: claims.tid!, oid: claims.oid!, clientId: claims.azp ?? claims.appid!, roles: [] };
}

interface Connected {
  client: Client;
  call: CallRecord;
  unexpected: unknown[];
  close(): Promise<void>;
}

/** The SDK client linked in memory to the core's MCP server, every message running as `principal`. */
async function connect(principal: number): Promise<Connected> {
  const execute = createOperationExecutor({ store: t.core.store, cursors: new CursorCodec(randomBytes(32)) });
  const call: CallRecord = { surface: 'mcp', recordIds: [] };
  const unexpected: unknown[] = [];
  const caller = await callerOf(principal);
  const scope: McpCallScope = {
    caller,
    call,
    requestId: 'in-memory',
    instance: '/v1/mcp',
    onUnexpected: (error) => unexpected.push(error),
  };
  const server = createCoreMcpServer(execute, () => scope);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'in-memory-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    call,
    unexpected,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

beforeAll(async () => {
  t = await startDemoCore();
  dep1 = t.creds.deployments[0]!.id;
});
afterAll(async () => t?.stop());

describe('core MCP server over an in-memory pair', () => {
  it('lists the eight read and four action tools with their schemas', async () => {
    const c = await connect(0);
    try {
      const { tools } = await c.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'listDeployments',
        'listDecisions',
        'listOpenQuestions',
        'listActionItems',
        'listStatements',
        'listTopics',
        'searchMemory',
        'getMeeting',
        'createActionItem',
        'updateActionItem',
        'resolveOpenQuestion',
        'updateDecision',
      ]);
      for (const tool of tools.filter((t) => t.name !== 'listDeployments')) {
        expect(tool.inputSchema.required).toContain('deployment_id');
        expect(tool.outputSchema?.type).toBe('object');
      }
    } finally {
      await c.close();
    }
  });

  it('answers reads with the REST envelope as structured content and the same JSON as text', async () => {
    const c = await connect(0);
    try {
      const decisions = await c.client.callTool({ name: 'listDecisions', arguments: { deployment_id: dep1, limit: 3 } });
      expect(decisions.isError).toBeFalsy();
      const envelope = listEnvelope(Decision).strict().parse(decisions.structuredContent);
      expect(envelope.items).toHaveLength(3);
      expect(JSON.parse((decisions.content as { text: string }[])[0]!.text)).toEqual(decisions.structuredContent);
      expect(c.call).toMatchObject({ operation: 'listDecisions', deploymentId: dep1, recordIds: [], outcomeStatus: 200 });

      const meetingId = envelope.items[0]!.meeting_id;
      const meeting = await c.client.callTool({ name: 'getMeeting', arguments: { deployment_id: dep1, meeting_id: meetingId } });
      expect(Meeting.parse(meeting.structuredContent).id).toBe(meetingId);
      expect(c.call).toMatchObject({ operation: 'getMeeting', recordIds: [meetingId], outcomeStatus: 200 });

      const search = await c.client.callTool({ name: 'searchMemory', arguments: { deployment_id: dep1, query: 'pricing', limit: 2 } });
      expect(SearchEnvelope.parse(search.structuredContent).results.length).toBeGreaterThan(0);
    } finally {
      await c.close();
    }
  });

  it('validates arguments like REST, refinements included, naming them in "arguments"', async () => {
    const c = await connect(0);
    try {
      const result = await c.client.callTool({
        name: 'listDecisions',
        arguments: { deployment_id: dep1, since: '2026-05-02', until: '2026-05-01', colour: 'red' },
      });
      expect(result.isError).toBe(true);
      const problem = toolProblem(result);
      expect(problem.status).toBe(400);
      expect(problem.invalid_params).toEqual(
        expect.arrayContaining([
          { name: 'colour', in: 'arguments', reason: 'unrecognised parameter' },
          expect.objectContaining({ name: 'until', in: 'arguments' }),
        ]),
      );
      expect(JSON.parse((result.content as { text: string }[])[1]!.text)).toEqual(problem);
      expect((result.content as { text: string }[])[0]!.text).toMatch(/^Error 400 .*\nFix the arguments named in invalid_params \(.*colour.*\)/s);
      expect(c.call.outcomeStatus).toBe(400);
    } finally {
      await c.close();
    }
  });

  it('refuses an action on a read grant with 403 and acts on a read_write grant', async () => {
    const reader = await connect(0);
    const writer = await connect(1);
    try {
      const args = { deployment_id: dep1, text: 'Send the in-memory MCP test report' };
      const refused = await reader.client.callTool({ name: 'createActionItem', arguments: args });
      expect(refused.isError).toBe(true);
      expect(toolProblem(refused)).toMatchObject({ status: 403, type: '/v1/problems/forbidden' });
      expect((refused.content as { text: string }[])[0]!.text).toContain('read_write');

      const created = await writer.client.callTool({ name: 'createActionItem', arguments: args });
      const item = ActionItem.parse(created.structuredContent);
      expect(item).toMatchObject({ text: args.text, status: 'open', deployment_id: dep1 });
      expect(writer.call).toMatchObject({ operation: 'createActionItem', recordIds: [item.id], outcomeStatus: 201 });

      const done = await writer.client.callTool({
        name: 'updateActionItem',
        arguments: { deployment_id: dep1, action_item_id: item.id, status: 'done' },
      });
      expect(ActionItem.parse(done.structuredContent).status).toBe('done');
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('answers an unknown record with 404 and a hint to list first', async () => {
    const c = await connect(0);
    try {
      const result = await c.client.callTool({ name: 'getMeeting', arguments: { deployment_id: dep1, meeting_id: 'no-such-meeting' } });
      expect(toolProblem(result).status).toBe(404);
      expect((result.content as { text: string }[])[0]!.text).toContain('list or search first');
      expect(c.unexpected).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it('keeps unknown tools a protocol error', async () => {
    const c = await connect(0);
    try {
      await expect(c.client.callTool({ name: 'deleteEverything', arguments: {} })).rejects.toThrow(/Unknown tool deleteEverything/);
    } finally {
      await c.close();
    }
  });
});
