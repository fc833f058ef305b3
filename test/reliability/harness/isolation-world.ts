import type { Access } from '../../../src/contract/index.js';
import { DEMO_DEPLOYMENTS, demoDocuments } from '../../../src/core/demo/index.js';
import type { Scope, Store } from '../../../src/core/store/store.js';
import { startDemoCore, type TestCore } from '../../helpers/core.js';
import { addPrincipal, tokenOf } from './principals.js';

/** Grant levels, in the order the principals rotate through them. */
export const LEVELS = ['none', 'read', 'read_write'] as const;
export type Level = (typeof LEVELS)[number];

/** The record kinds an operation can name by id, as the path parameter calls them. */
export const ID_PARAMS = {
  meeting_id: 'meeting',
  decision_id: 'decision',
  open_question_id: 'open_question',
  action_item_id: 'action_item',
} as const;
export type IdKind = (typeof ID_PARAMS)[keyof typeof ID_PARAMS];

export interface WorldDeployment {
  id: string;
  tenantId: string;
  /** Some records of each kind, to name in requests. */
  sample: Record<IdKind, string[]>;
}

export interface WorldPrincipal {
  name: string;
  tenantId: string;
  token: string;
  /** Grant level on every deployment of the world (foreign and missing ones are 'none'). */
  levels: Map<string, Level>;
}

/** Three tenants with four deployments each, all holding copies of the same demo meetings, and their principals. */
export interface IsolationWorld {
  core: TestCore;
  origin: string;
  /** The world's deployments, the demo tenant's two, and one that does not exist. */
  deployments: WorldDeployment[];
  missingDeployment: string;
  principals: WorldPrincipal[];
  /** Every record and deployment id of every deployment, with the deployment it belongs to. */
  owner: Map<string, string>;
}

const TENANTS = 3;
const DEPLOYMENTS_PER_TENANT = 4;
const SAMPLE = 2;

async function idsOf(store: Store, scope: Scope): Promise<{ all: string[]; sample: Record<IdKind, string[]> }> {
  const decisions = await store.list('decision', scope, { order: 'desc', limit: 5000 });
  const questions = await store.list('open_question', scope, { order: 'desc', limit: 5000 });
  const items = await store.list('action_item', scope, { order: 'desc', limit: 5000 });
  const statements = await store.list('statement', scope, { order: 'desc', limit: 5000 });
  const topics = await store.list('topic', scope, { order: 'desc', limit: 5000 });
  const meetings = [...new Set(statements.map((statement) => statement.meeting_id))];
  const all = [...decisions, ...questions, ...items, ...statements, ...topics].map((record) => record.id).concat(meetings, scope.deploymentId);
  const ids = (records: { id: string }[]) => records.slice(0, SAMPLE).map((record) => record.id);
  return { all, sample: { meeting: meetings.slice(0, SAMPLE), decision: ids(decisions), open_question: ids(questions), action_item: ids(items) } };
}

/** Records every id under its deployment; an id that two deployments share would itself be a leak. */
function own(owner: Map<string, string>, ids: string[], deploymentId: string): void {
  for (const id of ids) {
    const earlier = owner.get(id);
    if (earlier !== undefined && earlier !== deploymentId) throw new Error(`id ${id} belongs to both ${earlier} and ${deploymentId}`);
    owner.set(id, deploymentId);
  }
}

/**
 * Builds the world: tenants 0..2 with deployments 0..3, deployment d holding the meetings of demo teammate d mod 2
 * (so every tenant has the same text twice over), and per tenant three principals, principal k holding level
 * LEVELS[(k + d) mod 3] on deployment d, so every grant level meets every deployment.
 */
export async function startIsolationWorld(): Promise<IsolationWorld> {
  const core = await startDemoCore({ rateLimit: { perPrincipal: 1_000_000, perAddress: 1_000_000 } });
  const store = core.core.store;
  const origin = core.core.origin;
  const owner = new Map<string, string>();
  const deployments: WorldDeployment[] = [];
  const principals: WorldPrincipal[] = [];
  for (let t = 0; t < TENANTS; t += 1) {
    const tenant = await store.createTenant({ name: `Isolation ${t}`, region: t % 2 === 0 ? 'us' : 'ca' });
    const mine: WorldDeployment[] = [];
    for (let d = 0; d < DEPLOYMENTS_PER_TENANT; d += 1) {
      const content = DEMO_DEPLOYMENTS[d % DEMO_DEPLOYMENTS.length]!;
      const created = await store.createDeployment(tenant.id, { name: content.name, platform: content.platform, voice: content.voice });
      const scope = { tenantId: tenant.id, deploymentId: created.id };
      for (const doc of demoDocuments(content)) await store.importMeeting(scope, doc);
      const ids = await idsOf(store, scope);
      own(owner, ids.all, created.id);
      mine.push({ id: created.id, tenantId: tenant.id, sample: ids.sample });
    }
    deployments.push(...mine);
    for (let k = 0; k < LEVELS.length; k += 1) {
      const grants = mine
        .map((deployment, d) => ({ deploymentId: deployment.id, access: LEVELS[(k + d) % LEVELS.length]! }))
        .filter((grant): grant is { deploymentId: string; access: Access } => grant.access !== 'none');
      const principal = await addPrincipal(store, tenant.id, `isolation-${t}-${k}`, grants);
      const levels = new Map<string, Level>(mine.map((deployment, d) => [deployment.id, LEVELS[(k + d) % LEVELS.length]!]));
      principals.push({ name: principal.name, tenantId: tenant.id, token: await tokenOf(origin, principal), levels });
    }
  }
  for (const demo of core.creds.deployments) {
    const scope = { tenantId: core.creds.tenant_id, deploymentId: demo.id };
    const ids = await idsOf(store, scope);
    own(owner, ids.all, demo.id);
    deployments.push({ id: demo.id, tenantId: core.creds.tenant_id, sample: ids.sample });
  }
  return { core, origin, deployments, missingDeployment: '00000000-0000-4000-8000-000000000000', principals, owner };
}

/** A principal's level on any deployment id: 'none' for foreign, missing and ungranted ones. */
export function levelOf(principal: WorldPrincipal, deploymentId: string): Level {
  return principal.levels.get(deploymentId) ?? 'none';
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * The ids in an answer that belong to a deployment other than the allowed ones: a record of another deployment or
 * tenant. Ids the world does not know (request ids, people's identity ids) are not records and do not count.
 */
export function foreignIdsIn(world: IsolationWorld, text: string, allowed: ReadonlySet<string>): string[] {
  return [...new Set(text.match(UUID) ?? [])].filter((id) => {
    const deployment = world.owner.get(id);
    return deployment !== undefined && !allowed.has(deployment);
  });
}
