import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryClient, type MemoryClient } from '../../src/client/index.js';
import { App } from '../../src/cli/tui/app.js';
import { startDemoCore, type TestCore } from '../helpers/core.js';

// The TUI rendered by ink-testing-library against a real core with the demo provisioned: keys go in through stdin,
// frames come out as text.

const KEY = { up: '\u001B[A', down: '\u001B[B', right: '\u001B[C', left: '\u001B[D', enter: '\r', escape: '\u001B', backspace: '\u007F' };

let core: TestCore;
const clients: MemoryClient[] = [];
let atlas: string;
let juniper: string;

function clientFor(principal: number): MemoryClient {
  const client = createMemoryClient({ baseUrl: core.core.baseUrl, token: () => core.token(principal) });
  clients.push(client);
  return client;
}

async function frameWith(lastFrame: () => string | undefined, ...texts: string[]): Promise<string> {
  await vi.waitFor(
    () => {
      const frame = lastFrame() ?? '';
      for (const text of texts) expect(frame).toContain(text);
    },
    { timeout: 8000, interval: 25 },
  );
  return lastFrame() ?? '';
}

/** The text part of each decision row of a frame (rows are `› status date text…`), without the ellipsis. */
function rowTexts(frame: string): string[] {
  return frame
    .split('\n')
    .filter((line) => /^[› ] (confirmed|superseded) /.test(line))
    .map((line) => line.slice(30).replace(/…\s*$/, '').trimEnd());
}

/** Types keys one at a time, as a person would, letting Ink handle each before the next. */
async function type(stdin: { write(data: string): void }, ...keys: string[]): Promise<void> {
  for (const key of keys) {
    stdin.write(key);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

beforeAll(async () => {
  core = await startDemoCore();
  atlas = core.creds.deployments[0]!.id;
  juniper = core.creds.deployments[1]!.id;
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await core?.stop();
});

describe('memory tui', () => {
  it('opens the only deployment on the decisions tab with the detail pane: attribution, meeting and timestamps', async () => {
    const client = clientFor(1);
    const [first] = (await client.listDecisions({ deployment_id: atlas, limit: 1 })).items;
    const meeting = await client.getMeeting({ deployment_id: atlas, meeting_id: first!.meeting_id });
    const { lastFrame, unmount } = render(<App client={client} />);
    const frame = await frameWith(lastFrame, 'Decisions', 'Atlas · read_write', 'Decided', meeting.title);
    expect(frame).toContain(first!.text.slice(0, 30));
    expect(frame).toContain(first!.decided_at.slice(0, 10));
    expect(frame).toContain(first!.id);
    expect(frame).toMatch(/c confirm decision|s supersede decision/);
    unmount();
  });

  it('moves through the tabs and the list, and shows a meeting with its participants', async () => {
    const client = clientFor(1);
    const { lastFrame, stdin, unmount } = render(<App client={client} />);
    await frameWith(lastFrame, 'Decided');
    await type(stdin, KEY.right);
    await frameWith(lastFrame, 'Open question ·', 'Raised');
    await type(stdin, '3');
    await frameWith(lastFrame, 'Action item ·', 'Assignee');
    await type(stdin, '4');
    await frameWith(lastFrame, 'Topic ·', 'Last discussed');
    await type(stdin, KEY.right);
    const meetings = await frameWith(lastFrame, 'Participants', 'statements', 'Started');
    const before = meetings.split('\n').find((line) => line.startsWith('›'));
    await type(stdin, KEY.down);
    await vi.waitFor(() => expect((lastFrame() ?? '').split('\n').find((line) => line.startsWith('›'))).not.toBe(before));
    await type(stdin, KEY.left, KEY.left, KEY.left, KEY.left);
    await frameWith(lastFrame, 'Decision ·');
    unmount();
  });

  it('searches as you type within the tab, and Esc clears the search', async () => {
    const client = clientFor(1);
    const decisions = (await client.listDecisions({ deployment_id: atlas, limit: 50 })).items;
    // A word of the third decision, so the search finds something other than the first rows of the list.
    const word = decisions[2]!.text.split(/\W+/).reduce((longest, candidate) => (candidate.length > longest.length ? candidate : longest), '');
    const expected = (await client.searchMemory({ deployment_id: atlas, query: word, types: ['decision'] })).results;
    expect(expected.length).toBeGreaterThan(0);
    const [newest] = decisions;
    const { lastFrame, stdin, unmount } = render(<App client={client} searchDelayMs={50} />);
    await frameWith(lastFrame, 'Decided');
    // One chunk, as a fast typist or a paste delivers it: '/' opens the search and the rest is the query.
    await type(stdin, `/${word}`);
    await vi.waitFor(() => expect(rowTexts(lastFrame() ?? '')).toHaveLength(Math.min(expected.length, 7)), { timeout: 8000 });
    const frame = await frameWith(lastFrame, `Search: ${word}`, expected[0]!.text.slice(0, 25));
    for (const text of rowTexts(frame)) expect(expected.some((result) => result.text.startsWith(text))).toBe(true);
    await type(stdin, KEY.backspace, KEY.backspace);
    await frameWith(lastFrame, `Search: ${word.slice(0, -2)}`);
    await type(stdin, KEY.escape);
    await frameWith(lastFrame, '(press / to search)');
    await vi.waitFor(() => expect(newest!.text.startsWith(rowTexts(lastFrame() ?? '')[0]!)).toBe(true), { timeout: 8000 });
    unmount();
  });

  it('supersedes a decision with a note after confirming, and Esc cancels without a change', async () => {
    const client = clientFor(1);
    const [first] = (await client.listDecisions({ deployment_id: atlas, limit: 1 })).items;
    const { lastFrame, stdin, unmount } = render(<App client={client} />);
    await frameWith(lastFrame, first!.id);
    const action = first!.status === 'superseded' ? 'c' : 's';
    const label = action === 's' ? 'Supersede decision?' : 'Confirm decision?';
    await type(stdin, action);
    await frameWith(lastFrame, label, 'Note (optional)');
    await type(stdin, KEY.escape);
    await frameWith(lastFrame, 'Decided');
    expect((await client.getDecision({ deployment_id: atlas, decision_id: first!.id })).status).toBe(first!.status);

    await type(stdin, action);
    await frameWith(lastFrame, label);
    await type(stdin, ...'moved to Q3', KEY.enter);
    await frameWith(lastFrame, ': done.', 'moved to Q3');
    const changed = await client.getDecision({ deployment_id: atlas, decision_id: first!.id });
    expect(changed).toMatchObject({ status: action === 's' ? 'superseded' : 'confirmed', note: 'moved to Q3' });
    expect(changed.updated_by).toMatchObject({ kind: 'service_principal' });
    unmount();
  });

  it('marks an action item done with y and reopens it, each after a confirmation', async () => {
    const client = clientFor(1);
    const { lastFrame, stdin, unmount } = render(<App client={client} />);
    await frameWith(lastFrame, 'Decided');
    await type(stdin, '3');
    const frame = await frameWith(lastFrame, 'Action item ·', 'Assignee');
    const id = /ID\s+(\S+)/.exec(frame)![1]!;
    const steps = frame.includes('Action item · open')
      ? [['x', 'Mark action item done?', 'done'], ['o', 'Reopen action item?', 'open']]
      : [['o', 'Reopen action item?', 'open'], ['x', 'Mark action item done?', 'done']];
    for (const [key, question, status] of steps) {
      await type(stdin, key!);
      await frameWith(lastFrame, question!, 'y or Enter applies');
      await type(stdin, 'y');
      await frameWith(lastFrame, ': done.', `Action item · ${status}`);
      expect((await client.getActionItem({ deployment_id: atlas, action_item_id: id })).status).toBe(status);
    }
    unmount();
  });

  it('offers no change on a read-only grant and says why', async () => {
    const client = clientFor(0);
    const { lastFrame, stdin, unmount } = render(<App client={client} />);
    const frame = await frameWith(lastFrame, 'Atlas · read-only', 'Decided');
    expect(frame).not.toMatch(/confirm decision|supersede decision/);
    await type(stdin, 's');
    await frameWith(lastFrame, 'read-only: changes need read_write');
    expect(lastFrame()).not.toContain('Supersede decision?');
    unmount();
  });

  it('shows the keys on ? and closes the help on any key', async () => {
    const { lastFrame, stdin, unmount } = render(<App client={clientFor(1)} />);
    await frameWith(lastFrame, 'Decided');
    await type(stdin, '?');
    await frameWith(lastFrame, 'Keys', 'search as you type', 'confirm / supersede a decision');
    await type(stdin, ' ');
    await frameWith(lastFrame, 'Decided');
    expect(lastFrame()).not.toContain('search as you type');
    unmount();
  });

  it('asks which deployment when several are reachable', async () => {
    const { tenant_id: tenantId } = core.creds;
    const writer = core.creds.principals[1]!;
    const principal = await core.core.store.getPrincipalByClientId(tenantId, writer.client_id);
    await core.core.store.setGrant(tenantId, principal!.oid, juniper, 'read');
    const { lastFrame, stdin, unmount } = render(<App client={clientFor(1)} />);
    await frameWith(lastFrame, 'Pick a deployment', 'Atlas', 'Juniper');
    const order = (lastFrame() ?? '').indexOf('Juniper') > (lastFrame() ?? '').indexOf('Atlas') ? ['Atlas', 'Juniper'] : ['Juniper', 'Atlas'];
    await type(stdin, KEY.down, KEY.enter);
    await frameWith(lastFrame, `${order[1]} · `, 'Decided');
    unmount();
  });
});
