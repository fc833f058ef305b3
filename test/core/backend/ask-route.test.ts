import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AgentInvocation } from '../../../src/contract/agent-invocation.js';
import { callCore, useAskCore } from './helpers.js';

// POST /v1/admin/deployments/{id}/ask on a real core, which calls the real agent stub over TLS.
describe('the askTeammate admin route', () => {
  const fixture = useAskCore();

  const ask = (deployment: string, body: unknown, token = fixture.core.adminToken) =>
    callCore(fixture.core.t, token, 'POST', `/admin/deployments/${deployment}/ask`, body);

  it.each([
    ['https://10.0.0.5/agent', /private/],
    ['https://192.168.0.10/agent', /private/],
    ['https://169.254.169.254/latest', /metadata/],
    ['https://[fd00:ec2::254]/', /metadata/],
    ['https://[fe80::1]/', /link-local/],
    ['http://agent.example.com/', /must be https/],
  ])('registering %s is refused with the reason', async (url, reason) => {
    const answer = await fixture.core.register(fixture.core.atlas, url);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body.invalid_params)).toMatch(reason);
  });

  it('answers what the teammate says and the trace, from the registered stub over TLS', async () => {
    const backend = await fixture.stub();
    expect((await fixture.core.register(fixture.core.atlas, backend.url, { fallback_line: 'Atlas is thinking.', timeout_ms: 4000 })).status).toBe(200);
    const answer = await ask(fixture.core.atlas, { utterance: '  Good morning, Atlas  ' });
    expect(answer.status).toBe(200);
    const invocation = AgentInvocation.parse(answer.body);
    expect(invocation).toMatchObject({ spoken: 'You said: Good morning, Atlas', fallback: false, deployment_id: fixture.core.atlas, timeout_ms: 4000 });
    expect(invocation.rounds).toEqual([expect.objectContaining({ round: 1, status: 200, verdict: 'answered' })]);
  });

  it('a tool round answers from the deployment memory only', async () => {
    const backend = await fixture.stub({ mode: { kind: 'tool-demo' } });
    await fixture.core.register(fixture.core.atlas, backend.url);
    await fixture.core.register(fixture.core.juniper, backend.url);
    const fromAtlas = AgentInvocation.parse((await ask(fixture.core.atlas, { utterance: 'billing cutover' })).body);
    expect(fromAtlas.spoken).toMatch(/^From memory: .*billing/i);
    expect(fromAtlas.rounds.map((round) => round.verdict)).toEqual(['tool_calls', 'answered']);
    const fromJuniper = AgentInvocation.parse((await ask(fixture.core.juniper, { utterance: 'billing cutover' })).body);
    expect(fromJuniper.spoken).not.toMatch(/billing cutover|October 3-4/i);
  });

  it('a failing backend still answers 200: the fallback line and why', async () => {
    const backend = await fixture.stub({ secret: 'not-the-registered-secret-000000' });
    await fixture.core.register(fixture.core.atlas, backend.url, { fallback_line: 'Atlas is thinking.' });
    const answer = await ask(fixture.core.atlas, { utterance: 'Hello' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ spoken: 'Atlas is thinking.', fallback: true, failure: { code: 'http-status' } });
  });

  it('takes a meeting of the deployment, and refuses one it does not hold', async () => {
    const backend = await fixture.stub();
    await fixture.core.register(fixture.core.atlas, backend.url);
    const scope = { tenantId: fixture.core.t.creds.tenant_id, deploymentId: fixture.core.atlas };
    const [statement] = await fixture.core.t.core.store.list('statement', scope, { order: 'desc', limit: 1 });
    const inMeeting = await ask(fixture.core.atlas, { utterance: 'Hi', meeting_id: statement!.meeting_id });
    expect(inMeeting.body).toMatchObject({ meeting_id: statement!.meeting_id, fallback: false });
    const foreign = await ask(fixture.core.juniper, { utterance: 'Hi', meeting_id: statement!.meeting_id });
    expect(foreign.status).toBe(400);
    expect(foreign.body.invalid_params).toEqual([expect.objectContaining({ name: 'meeting_id' })]);
  });

  it('refuses principals that are not admins, whatever their grants, and empty utterances', async () => {
    const writer = await fixture.core.t.token(1);
    expect((await ask(fixture.core.atlas, { utterance: 'Hi' }, writer)).status).toBe(403);
    expect((await ask(fixture.core.atlas, { utterance: '   ' })).status).toBe(400);
    expect((await ask(randomUUID(), { utterance: 'Hi' })).status).toBe(404);
  });
});
