import { describe, expect, it } from 'vitest';
import { AgentInvocation } from '../../src/contract/agent-invocation.js';
import { formatInvocation } from '../../src/cli/commands/ask.js';
import { useAskCore } from '../core/backend/helpers.js';
import { runMemory } from './run-memory.js';

// `memory ask` against a real core (admin route) that calls the real agent stub over TLS.
describe('memory ask', () => {
  const fixture = useAskCore();

  async function registerStub(deployment: string, options: Parameters<typeof fixture.stub>[0] = {}, extra: Record<string, unknown> = {}) {
    const stub = await fixture.stub(options);
    expect((await fixture.core.register(deployment, stub.url, extra)).status).toBe(200);
    return stub;
  }

  const asAdmin = () => ({ MEMORY_BASE_URL: fixture.core.t.core.baseUrl, MEMORY_TOKEN: fixture.core.adminToken });

  it('prints what the teammate says, answered from memory through a tool round, and the trace as JSON', async () => {
    await registerStub(fixture.core.atlas, { mode: { kind: 'tool-demo' } });
    const run = await runMemory(['ask', 'billing cutover', '--deployment', fixture.core.atlas, '--json'], asAdmin());
    // The core runs in this process: its stderr log line is there too, but no error.
    expect(run.stderr).not.toMatch(/^error:/m);
    expect(run.code).toBe(0);
    const invocation = AgentInvocation.parse(JSON.parse(run.stdout));
    expect(invocation).toMatchObject({ fallback: false, deployment_id: fixture.core.atlas });
    expect(invocation.spoken).toMatch(/^From memory: .*billing/i);
    expect(invocation.rounds.map((round) => [round.round, round.status, round.verdict])).toEqual([
      [1, 200, 'tool_calls'],
      [2, 200, 'answered'],
    ]);
  });

  it('exits 1 when the fallback was spoken, with the reason and the next step', async () => {
    await registerStub(fixture.core.atlas, {}, { timeout_ms: 1000, fallback_line: 'Give me a moment.' });
    const run = await runMemory(['ask', 'Hello', '--deployment', fixture.core.atlas], { ...asAdmin(), MM_ASK_SECRET: 'another-secret-than-the-stubs-0000' });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ spoken: 'Give me a moment.', fallback: true, failure: { code: 'http-status' } });
    expect(run.stderr).toMatch(/error: The backend failed \(http-status\): the fallback line was spoken\./);
    expect(run.stderr).toMatch(/next: .*memory agent-check/);
  });

  it('the trace reads as text on a terminal', async () => {
    await registerStub(fixture.core.atlas, { mode: { kind: 'tool-demo' } });
    const run = await runMemory(['ask', 'billing cutover', '--deployment', fixture.core.atlas, '--json'], asAdmin());
    const text = formatInvocation(AgentInvocation.parse(JSON.parse(run.stdout)));
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Teammate says: From memory: /);
    expect(lines).toContainEqual(expect.stringMatching(/^Backend https:\/\/127\.0\.0\.1:\d+\/, budget 15000 ms, \d+ ms in all, invocation [0-9a-f-]{36}$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}round 1: 200 in \d+ ms \(1 messages, \d+ B sent, \d+ B back\): tool_calls$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {4}searchMemory\("billing cutover"\) -> \d+ records$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}round 2: 200 in \d+ ms \(3 messages, .*\): answered$/));
  });

  it('refuses a principal that is not an admin', async () => {
    const run = await runMemory(['ask', 'Hello', '--deployment', fixture.core.atlas], { ...asAdmin(), MEMORY_TOKEN: await fixture.core.t.token(1) });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/needs an admin principal \(403\)/);
  });

  it('refuses bad arguments with exit code 2 before going to the core', async () => {
    const badMeeting = await runMemory(['ask', 'Hello', '--deployment', fixture.core.atlas, '--meeting', 'not-a-uuid'], {});
    expect(badMeeting.code).toBe(2);
    expect(badMeeting.stderr).toMatch(/--meeting must be a meeting id/);
    const empty = await runMemory(['ask', '  ', '--deployment', fixture.core.atlas], {});
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/<utterance> utterance must not be empty/);
    const noDeployment = await runMemory(['ask', 'Hello'], asAdmin());
    expect(noDeployment.code).toBe(2);
    expect(noDeployment.stderr).toMatch(/--deployment/);
  });
});
