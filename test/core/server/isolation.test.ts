import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, pathParams } from '../../../src/contract/index.js';
import { generateSecret, hashSecret } from '../../../src/core/auth/secret-hash.js';
import { DEMO_DEPLOYMENTS, demoDocuments } from '../../../src/core/demo/index.js';
import { requestToken, startDemoCore, type TestCore } from '../../helpers/core.js';

/**
 * Two tenants, two deployments each side, overlapping text (tenant B holds a copy of the Juniper meetings): no
 * route, given any foreign id, answers anything but 403/404, and no answer carries a foreign record.
 */
let t: TestCore;
let tokenA: string;
let tokenB: string;
const own = { deployment: '', decision: '', question: '', item: '', meeting: '' };
const foreign = { deployment: [] as string[], decision: [] as string[], question: [] as string[], item: [] as string[], meeting: [] as string[], text: [] as string[] };

async function get(path: string, token: string) {
  const response = await fetch(`${t.core.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, text: await response.text() };
}

async function firstIds(deployment: string, token: string) {
  const pick = async (kind: string) => JSON.parse((await get(`/deployments/${deployment}/${kind}?limit=200`, token)).text).items;
  const decisions = await pick('decisions');
  return {
    decision: decisions.map((d: { id: string }) => d.id),
    question: (await pick('open-questions')).map((q: { id: string }) => q.id),
    item: (await pick('action-items')).map((a: { id: string }) => a.id),
    meeting: [...new Set<string>(decisions.map((d: { meeting_id: string }) => d.meeting_id))],
    text: decisions.map((d: { text: string }) => d.text),
  };
}

beforeAll(async () => {
  t = await startDemoCore();
  const store = t.core.store;
  const tenantB = await store.createTenant({ name: 'Other Co', region: 'ca' });
  const depB1 = await store.createDeployment(tenantB.id, { name: 'Juniper', platform: 'zoom', voice: 'alloy' });
  const depB2 = await store.createDeployment(tenantB.id, { name: 'Second', platform: 'teams', voice: 'alloy' });
  for (const doc of demoDocuments(DEMO_DEPLOYMENTS[1]!)) await store.importMeeting({ tenantId: tenantB.id, deploymentId: depB1.id }, doc);
  const secret = generateSecret();
  const principal = await store.createPrincipal({
    tenantId: tenantB.id,
    oid: crypto.randomUUID(),
    clientId: crypto.randomUUID(),
    displayName: 'other-reader',
    secretHash: await hashSecret(secret),
    isAdmin: false,
  });
  await store.setGrant(tenantB.id, principal.oid, depB1.id, 'read_write');
  const tokenUrl = t.creds.token_url.replace(t.creds.tenant_id, tenantB.id);
  tokenB = await requestToken(tokenUrl, principal.clientId, secret, t.creds.principals[0]!.scope);
  tokenA = await t.token(1);
  own.deployment = t.creds.deployments[0]!.id;

  const mine = await firstIds(own.deployment, tokenA);
  own.decision = mine.decision[0]!;
  own.question = mine.question[0]!;
  own.item = mine.item[0]!;
  own.meeting = mine.meeting[0]!;
  const juniper = await firstIds(t.creds.deployments[1]!.id, await t.token(2));
  const otherTenant = await firstIds(depB1.id, tokenB);
  foreign.deployment = [t.creds.deployments[1]!.id, depB1.id, depB2.id];
  for (const key of ['decision', 'question', 'item', 'meeting', 'text'] as const) {
    foreign[key] = [...juniper[key], ...otherTenant[key]];
  }
});
afterAll(async () => t?.stop());

function pathFor(op: (typeof OPERATIONS)[number], ids: Record<string, string>): string {
  return `/v1${op.path}`.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name]!).slice(3);
}

const PARAM_KIND: Record<string, 'decision' | 'question' | 'item' | 'meeting'> = {
  decision_id: 'decision',
  open_question_id: 'question',
  action_item_id: 'item',
  meeting_id: 'meeting',
};

/** Foreign ids or texts in an answer, not counting `instance`, which echoes the caller's own request path. */
function leaks(text: string): string[] {
  text = text.replace(/"instance":"[^"]*"/, '');
  const ids = [...foreign.deployment, ...foreign.decision, ...foreign.question, ...foreign.item, ...foreign.meeting];
  return [...ids, ...foreign.text].filter((needle) => text.includes(needle));
}

describe('isolation across tenants and deployments', () => {
  it('gives 403 for every deployment-scoped route on a foreign deployment, identical to a missing one', async () => {
    for (const op of OPERATIONS.filter((o) => pathParams(o).includes('deployment_id'))) {
      const bodies = new Set<string>();
      for (const deployment of [...foreign.deployment, '00000000-0000-4000-8000-000000000000']) {
        const ids = { deployment_id: deployment, decision_id: own.decision, open_question_id: own.question, action_item_id: own.item, meeting_id: own.meeting };
        const path = pathFor(op, ids) + (op.name === 'searchMemory' ? '?q=renewal' : '');
        const init = op.method === 'GET' ? {} : { method: op.method, body: JSON.stringify(op.name === 'createActionItem' ? { text: 'x' } : { status: op.name === 'updateDecision' ? 'confirmed' : 'open' }), headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenA}` } };
        const response = op.method === 'GET' ? await get(path, tokenA) : await fetch(`${t.core.baseUrl}${path}`, init).then(async (r) => ({ status: r.status, text: await r.text() }));
        expect(response.status, `${op.name} on ${deployment}`).toBe(403);
        const { request_id: _r, instance: _i, ...rest } = JSON.parse(response.text);
        bodies.add(JSON.stringify(rest));
        expect(leaks(response.text)).toEqual([]);
      }
      expect(bodies.size, op.name).toBe(1);
    }
  });

  it('gives 404 for foreign record ids inside the caller\'s own deployment, on reads and writes', async () => {
    for (const op of OPERATIONS.filter((o) => pathParams(o).some((p) => p in PARAM_KIND))) {
      const param = pathParams(op).find((p) => p in PARAM_KIND)!;
      const ids = foreign[PARAM_KIND[param]!];
      for (const foreignId of [...ids.slice(0, 3), ...ids.slice(-3)]) {
        const path = pathFor(op, { deployment_id: own.deployment, [param]: foreignId });
        const response =
          op.method === 'GET'
            ? await get(path, tokenA)
            : await fetch(`${t.core.baseUrl}${path}`, {
                method: op.method,
                headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenA}` },
                body: JSON.stringify({ status: op.name === 'updateDecision' ? 'superseded' : op.name === 'updateActionItem' ? 'done' : 'resolved' }),
              }).then(async (r) => ({ status: r.status, text: await r.text() }));
        expect(response.status, `${op.name} ${foreignId}`).toBe(404);
        expect(leaks(response.text)).toEqual([]);
      }
    }
  });

  it('never returns a foreign record from lists, search or filters, even on shared words', async () => {
    const base = `/deployments/${own.deployment}`;
    const paths = ['/deployments', `${base}/decisions?limit=200`, `${base}/open-questions?limit=200`, `${base}/action-items?limit=200`, `${base}/statements?limit=200`, `${base}/topics?limit=200`];
    for (const word of ['renewal', 'renewals', 'pricing', 'customer', 'the']) paths.push(`${base}/search?q=${word}&limit=100`);
    for (const meeting of foreign.meeting) paths.push(`${base}/decisions?meeting_id=${meeting}`, `${base}/statements?meeting_id=${meeting}`);
    for (const path of paths) {
      const response = await get(path, tokenA);
      expect(response.status, path).toBe(200);
      expect(leaks(response.text), path).toEqual([]);
    }
    const otherTenant = await get('/deployments', tokenB);
    expect(JSON.parse(otherTenant.text).items).toHaveLength(1);
    expect(otherTenant.text).not.toContain(own.deployment);
  });

  it('leaves foreign records untouched after refused writes', async () => {
    const before = (await get(`/deployments/${foreign.deployment[1]}/decisions?limit=200`, tokenB)).text;
    for (const id of foreign.decision) {
      await fetch(`${t.core.baseUrl}/deployments/${own.deployment}/decisions/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenA}` },
        body: JSON.stringify({ status: 'superseded', note: 'hijack' }),
      });
    }
    expect((await get(`/deployments/${foreign.deployment[1]}/decisions?limit=200`, tokenB)).text).toBe(before);
  });
});
