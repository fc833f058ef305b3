import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbObserver } from './harness/db-snapshot.js';
import { auditViolations, checkMcp, checkRest, describeExchange, stateViolations, type Verdict } from './harness/fuzz-checks.js';
import { mcpCases, type McpCase } from './harness/fuzz-mcp.js';
import { ADMIN_ROUTES_NOT_FUZZED, adminCases, restCases, type RestCase } from './harness/fuzz-rest.js';
import { startFuzzWorld, type FuzzWorld } from './harness/fuzz-world.js';
import { send, type Answer, type RawRequest } from './harness/http.js';
import { knownFindingOf } from './harness/known-findings.js';
import { BUDGET, MODE, fuzzSeed } from './harness/mode.js';
import { writeSuiteResult } from './harness/results.js';

/**
 * Fuzzing both surfaces of a real core over real HTTP. Properties, for every generated request: no 5xx (and no
 * internal error inside an MCP result), every refusal a consistent problem document with the request id, every
 * success shaped as the contract says, and a request that changes nothing (refused, or a read) leaves every table
 * of the database as it was, audit entries aside, of which there is at most one and it names the request.
 */
let world: FuzzWorld;
let observer: DbObserver;
const seed = fuzzSeed();
/** Answers by HTTP status (REST) or by the status the call stands for (MCP: a tool result, a JSON-RPC error, HTTP). */
const tally = {
  rest: new Map<string, number>(),
  admin: new Map<string, number>(),
  mcp: new Map<string, number>(),
  actionsApplied: 0,
  findings: new Map<string, number>(),
};

beforeAll(async () => {
  world = await startFuzzWorld();
  observer = new DbObserver(world.dbFile);
}, 120_000);

afterAll(async () => {
  observer?.close();
  await world?.core.stop();
  writeSuiteResult('fuzz', {
    mode: MODE,
    seed,
    rest_cases: sum(tally.rest),
    admin_cases: sum(tally.admin),
    mcp_cases: sum(tally.mcp),
    cases: sum(tally.rest) + sum(tally.admin) + sum(tally.mcp),
    actions_applied: tally.actionsApplied,
    admin_routes_not_fuzzed: ADMIN_ROUTES_NOT_FUZZED,
    rest_statuses: Object.fromEntries([...tally.rest].sort()),
    admin_statuses: Object.fromEntries([...tally.admin].sort()),
    mcp_statuses: Object.fromEntries([...tally.mcp].sort()),
    audit_tables: observer ? observer.appendOnlyTables() : [],
    known_findings_seen: Object.fromEntries(tally.findings),
  });
});

function sum(counts: Map<string, number>): number {
  return [...counts.values()].reduce((a, b) => a + b, 0);
}

/** Sends one case, checks the answer and the database, and throws a readable report when any property fails. */
type Surface = 'rest' | 'admin' | 'mcp';

async function exchange(request: RawRequest, surface: Surface, check: (answer: Answer) => Verdict): Promise<void> {
  const counts = tally[surface];
  let answer: Answer;
  try {
    answer = await send(world.origin, request);
  } catch (error) {
    throw new Error(describeExchange(request, error as Error, ['the connection failed']));
  }
  const verdict = check(answer);
  const key = surface === 'mcp' ? mcpOutcomeKey(answer, verdict) : String(answer.status);
  counts.set(key, (counts.get(key) ?? 0) + 1);
  const changes = observer.changes();
  observer.advance();
  if (verdict.changedMemory) tally.actionsApplied += 1;
  const shapeProblems = [...verdict.problems, ...auditViolations(changes, answer, observer.appendOnlyTables(), surface === 'mcp' ? (verdict.outcomeStatus ?? null) : answer.status)];
  const finding = shapeProblems.length > 0 ? knownFindingOf(answer) : undefined;
  if (finding) tally.findings.set(finding.id, (tally.findings.get(finding.id) ?? 0) + 1);
  const problems = [...(finding ? [] : shapeProblems), ...stateViolations(verdict, changes)];
  if (problems.length > 0) throw new Error(describeExchange(request, answer, problems));
}

function mcpOutcomeKey(answer: Answer, verdict: Verdict): string {
  if (verdict.outcomeStatus !== undefined) return `tool ${verdict.outcomeStatus}`;
  const error = (answer.json as { error?: { code?: number } } | undefined)?.error;
  return error ? `json-rpc error ${error.code}` : `http ${answer.status}`;
}

/** One fuzz property: `cases` generated requests on one surface, each sent, checked and held against the database. */
function fuzzSurface<C extends { request: RawRequest }>(
  title: string,
  surface: Surface,
  cases: number,
  arbitrary: () => fc.Arbitrary<C>,
  check: (c: C, answer: Answer) => Verdict,
): void {
  it(
    title,
    async () => {
      await fc.assert(
        fc.asyncProperty(arbitrary(), (c: C) => exchange(c.request, surface, (answer) => check(c, answer))),
        { numRuns: cases, seed, verbose: 1 },
      );
      expect(sum(tally[surface])).toBeGreaterThanOrEqual(cases);
    },
    60_000 + cases * 60,
  );
}

describe(`fuzzing (${MODE}: ${BUDGET.restFuzzCases} REST + ${BUDGET.mcpFuzzCases} MCP + ${BUDGET.adminFuzzCases} admin cases, seed ${seed})`, () => {
  fuzzSurface(
    'every REST route: no 5xx, refusals are problem documents, refusals change nothing',
    'rest',
    BUDGET.restFuzzCases,
    () => restCases(world),
    (c: RestCase, answer) => checkRest(c, answer),
  );
  fuzzSurface(
    'every MCP tool and resource: no 5xx or internal errors, tool errors carry problem documents, refusals change nothing',
    'mcp',
    BUDGET.mcpFuzzCases,
    () => mcpCases(world),
    (c: McpCase, answer) => checkMcp(c, answer),
  );
  // Last, as admin actions may revoke the grants and rotate the secrets the other properties' principals rely on.
  fuzzSurface(
    'every admin route (but those that reach beyond this machine): no 5xx, refusals are problem documents that change nothing',
    'admin',
    BUDGET.adminFuzzCases,
    () => adminCases(world),
    (c: RestCase, answer) => checkRest(c, answer),
  );

  it('leaves every earlier audit entry as it was written', () => {
    expect(observer.verifyAppendOnly()).toEqual([]);
  });
});
