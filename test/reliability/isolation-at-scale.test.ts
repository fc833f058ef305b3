import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, pathParams, type AnyOperation } from '../../src/contract/index.js';
import { ID_PARAMS, LEVELS, foreignIdsIn, levelOf, startIsolationWorld, type IsolationWorld, type WorldDeployment, type WorldPrincipal } from './harness/isolation-world.js';
import { BUDGET, MODE } from './harness/mode.js';
import { writeSuiteResult } from './harness/results.js';
import { callMcp, callRest, inputFor, mcpMessage, type Outcome } from './harness/surfaces.js';

/**
 * Isolation at scale: three tenants of four deployments each (plus the demo tenant), all holding the same meetings,
 * and principals holding every grant level on every deployment. Every operation on both surfaces is called on every
 * deployment and with foreign ids of every kind; each answer must have the contract's status (403 without a grant,
 * for a missing or foreign deployment, and for a read grant on an action; 404 for a foreign record inside an
 * authorized deployment) and carry no id of a record outside the deployment asked about, search results included.
 */
type Surface = 'rest' | 'mcp';
interface Case {
  surface: Surface;
  principal: WorldPrincipal;
  op: AnyOperation;
  deploymentId: string;
  input: Record<string, unknown>;
  expected: number;
  /** Deployments whose records the answer may name. */
  allowed: Set<string>;
}

let world: IsolationWorld;
const tally = { requests: 0, bySurface: { rest: 0, mcp: 0 }, byStatus: new Map<number, number>(), leaks: 0 };
const failures: string[] = [];
const forbiddenBodies = new Set<string>();
const WORDS = ['renewal', 'pricing', 'customer', 'the', 'launch'];
const CONCURRENCY = 8;

beforeAll(async () => {
  world = await startIsolationWorld();
}, 180_000);

afterAll(async () => {
  await world?.core.stop();
  writeSuiteResult('isolation', {
    mode: MODE,
    tenants: 3,
    deployments: world ? world.deployments.length : 0,
    principals: world ? world.principals.length : 0,
    requests: tally.requests,
    requests_by_surface: tally.bySurface,
    statuses: Object.fromEntries([...tally.byStatus].sort()),
    leaks_found: tally.leaks,
    wrong_statuses: failures.length,
    failures: failures.slice(0, 30),
  });
});

/** The short run takes the first principal of each tenant's rotation offset by the tenant (so all three levels show). */
function principalsInPlay(): WorldPrincipal[] {
  if (BUDGET.isolationFull) return world.principals;
  return world.principals.filter((_, index) => index % LEVELS.length === Math.floor(index / LEVELS.length) % LEVELS.length);
}

/** Where foreign ids come from: every other deployment, or in the short run one of the same tenant and two others. */
function sourcesFor(target: WorldDeployment): WorldDeployment[] {
  const others = world.deployments.filter((deployment) => deployment.id !== target.id);
  if (BUDGET.isolationFull) return others;
  const sameTenant = others.find((deployment) => deployment.tenantId === target.tenantId);
  const foreign = others.filter((deployment) => deployment.tenantId !== target.tenantId);
  return [sameTenant, foreign[0], foreign[foreign.length - 1]].filter((deployment): deployment is WorldDeployment => deployment !== undefined);
}

function surfacesOf(op: AnyOperation): Surface[] {
  return op.mcpTool ? ['rest', 'mcp'] : ['rest'];
}

const scoped = OPERATIONS.filter((op) => pathParams(op).includes('deployment_id'));

function idsOf(deployment: WorldDeployment | undefined, op: AnyOperation): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const param of pathParams(op)) {
    const kind = ID_PARAMS[param as keyof typeof ID_PARAMS];
    if (kind) ids[param] = deployment?.sample[kind][0] ?? crypto.randomUUID();
  }
  return ids;
}

/** Calls on every deployment (and a missing one) with that deployment's own record ids: the grant decides. */
function deploymentCases(): Case[] {
  const cases: Case[] = [];
  const targets: (WorldDeployment | undefined)[] = [...world.deployments, undefined];
  for (const principal of principalsInPlay()) {
    for (const target of targets) {
      const deploymentId = target?.id ?? world.missingDeployment;
      const level = levelOf(principal, deploymentId);
      for (const op of scoped) {
        const refused = level === 'none' || (op.access === 'write' && level === 'read');
        const input = inputFor(op, { deployment_id: deploymentId, ...idsOf(target, op) });
        for (const surface of surfacesOf(op)) {
          cases.push({ surface, principal, op, deploymentId, input, expected: refused ? 403 : op.successStatus, allowed: new Set([deploymentId]) });
        }
      }
    }
  }
  return cases;
}

/** Foreign record ids inside each deployment the principal may read: 404, or 403 for an action on a read grant. */
function recordCases(): Case[] {
  const cases: Case[] = [];
  for (const principal of principalsInPlay()) {
    for (const target of world.deployments.filter((deployment) => levelOf(principal, deployment.id) !== 'none')) {
      const level = levelOf(principal, target.id);
      for (const op of scoped.filter((candidate) => pathParams(candidate).some((param) => param in ID_PARAMS))) {
        for (const source of sourcesFor(target)) {
          const input = inputFor(op, { deployment_id: target.id, ...idsOf(source, op) });
          const expected = op.access === 'write' && level === 'read' ? 403 : 404;
          for (const surface of surfacesOf(op)) cases.push({ surface, principal, op, deploymentId: target.id, input, expected, allowed: new Set([target.id]) });
        }
      }
    }
  }
  return cases;
}

/** Lists, searches on words every deployment shares, and filters naming foreign meetings: 200, and only own records. */
function listCases(): Case[] {
  const cases: Case[] = [];
  const lists = scoped.filter((op) => op.method === 'GET' && !pathParams(op).some((param) => param in ID_PARAMS));
  for (const principal of principalsInPlay()) {
    for (const target of world.deployments.filter((deployment) => levelOf(principal, deployment.id) !== 'none')) {
      const allowed = new Set([target.id]);
      const push = (op: AnyOperation, extra: Record<string, unknown>) => {
        for (const surface of surfacesOf(op)) cases.push({ surface, principal, op, deploymentId: target.id, input: inputFor(op, { deployment_id: target.id }, extra), expected: 200, allowed });
      };
      for (const op of lists) {
        if (op.name === 'searchMemory') {
          for (const word of BUDGET.isolationFull ? WORDS : WORDS.slice(0, 2)) push(op, { query: word, limit: 100 });
        } else {
          push(op, { limit: 200 });
          if ('meeting_id' in op.input.shape) for (const source of sourcesFor(target)) push(op, { meeting_id: source.sample.meeting[0]!, limit: 200 });
        }
      }
    }
  }
  return cases;
}

function listDeploymentCases(): Case[] {
  const op = OPERATIONS.find((candidate) => candidate.name === 'listDeployments')!;
  return principalsInPlay().flatMap((principal) => {
    const granted = new Set([...principal.levels].filter(([, level]) => level !== 'none').map(([id]) => id));
    return surfacesOf(op).map((surface) => ({ surface, principal, op, deploymentId: '', input: {}, expected: 200, allowed: granted }));
  });
}

/** The 403 body without its per-request members: it must be the same whatever the reason was. */
function forbiddenShape(outcome: Outcome): string {
  const { request_id: _id, instance: _instance, ...rest } = outcome.problem ?? {};
  return JSON.stringify(rest);
}

async function run(c: Case): Promise<void> {
  const outcome = c.surface === 'rest' ? await callRest(world.origin, c.principal.token, c.op, c.input) : await callMcp(world.origin, c.principal.token, c.op, c.input);
  tally.requests += 1;
  tally.bySurface[c.surface] += 1;
  tally.byStatus.set(outcome.status, (tally.byStatus.get(outcome.status) ?? 0) + 1);
  const where = `${c.surface} ${c.op.name} by ${c.principal.name} on ${c.deploymentId} ${JSON.stringify(c.input)}`;
  if (outcome.status !== c.expected) failures.push(`${where}: ${outcome.status}, expected ${c.expected}: ${outcome.text.slice(0, 200)}`);
  if (outcome.status === 403 && c.surface === 'rest') forbiddenBodies.add(forbiddenShape(outcome));
  const leaked = foreignIdsIn(world, outcome.text.replace(/"instance":"[^"]*"/g, ''), c.allowed);
  if (leaked.length > 0) {
    tally.leaks += leaked.length;
    failures.push(`${where}: LEAK of ${leaked.map((id) => `${id} (of ${world.owner.get(id)})`).join(', ')}`);
  }
  if (c.op.name === 'listDeployments' && outcome.status === 200) {
    const listed = new Set(((outcome.body as { items?: { id: string }[] }).items ?? []).map((item) => item.id));
    if ([...listed].sort().join() !== [...c.allowed].sort().join()) failures.push(`${where}: lists ${[...listed].join(', ')}, granted ${[...c.allowed].join(', ')}`);
  }
}

async function runAll(cases: Case[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < cases.length) await run(cases[next++]!);
    }),
  );
}

describe(`isolation at scale (${MODE}: 3 tenants x 4 deployments, every grant level, REST and MCP)`, () => {
  it('answers 403 for every call on a deployment without the needed grant, and 2xx with only own records otherwise', async () => {
    await runAll([...deploymentCases(), ...listDeploymentCases()]);
    expect(failures).toEqual([]);
    expect(forbiddenBodies.size).toBe(1);
  }, 300_000);

  it('answers 404 (403 for an action on a read grant) for every foreign record id inside an authorized deployment', async () => {
    await runAll(recordCases());
    expect(failures).toEqual([]);
  }, 300_000);

  it('never shows another deployment\'s record in a list, a search on shared words, or a filter naming a foreign meeting', async () => {
    await runAll(listCases());
    expect(failures).toEqual([]);
  }, 300_000);

  it('reads a foreign meeting as an MCP resource as not found, without naming it', async () => {
    for (const principal of principalsInPlay()) {
      for (const source of world.deployments.filter((deployment) => levelOf(principal, deployment.id) === 'none')) {
        const answer = await mcpMessage(world.origin, principal.token, 'resources/read', { uri: `service://meetings/${source.sample.meeting[0]}` });
        tally.requests += 1;
        tally.bySurface.mcp += 1;
        const error = (answer.json as { error?: { code: number } }).error;
        if (!error) failures.push(`${principal.name} read foreign meeting ${source.sample.meeting[0]} of ${source.id}: ${answer.text.slice(0, 200)}`);
        const leaked = foreignIdsIn(world, answer.text.replaceAll(source.sample.meeting[0]!, ''), new Set());
        if (leaked.length > 0) failures.push(`${principal.name} resource read leaked ${leaked.join(', ')}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
