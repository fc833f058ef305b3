import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SignJWT, decodeProtectedHeader, generateKeyPair, importJWK, type JWK, type JWTPayload } from 'jose';
import { OPERATIONS, type AnyOperation } from '../../../src/contract/index.js';
import { DEMO_DEPLOYMENTS, demoDocuments } from '../../../src/core/demo/index.js';
import type { ListKind, Scope, Store } from '../../../src/core/store/store.js';
import { startDemoCore, type TestCore } from '../../helpers/core.js';
import { jsonRequest, send } from './http.js';
import { addPrincipal, tokenOf } from './principals.js';

/** Record kinds a request can name by id. */
export type IdKind = 'deployment' | 'decision' | 'open_question' | 'action_item' | 'meeting';

export type IdsByKind = Record<Exclude<IdKind, 'deployment'>, string[]>;

/** Everything the fuzzers draw from: a demo core, tokens of every kind, and real ids from every side. */
export interface FuzzWorld {
  core: TestCore;
  origin: string;
  dbFile: string;
  /** Read and read_write tokens on the own deployment (several, so the rate limit does not steer the run). */
  readers: string[];
  writers: string[];
  /** Valid tokens that reach no grant on the own deployment: read on Juniper, and another tenant's. */
  outsiders: string[];
  /** Tokens that must all be refused with 401: expired, unsigned, wrongly signed, wrong claims. */
  forged: string[];
  /** Tokens of admin principals of the own tenant (the admin surface). */
  admins: string[];
  /** Client ids of the tenant's principals, for the admin routes that name one. */
  clientIds: string[];
  deployments: { own: string; sibling: string; foreignTenant: string };
  own: IdsByKind;
  /** Ids that exist, but in another deployment of the tenant or in another tenant. */
  foreign: IdsByKind;
  /** Cursors the core issued for the own deployment, by operation name. */
  cursors: Map<string, string[]>;
}

const POOL = 4;

async function idsOf(store: Store, scope: Scope): Promise<IdsByKind> {
  const of = (kind: ListKind) => store.list(kind, scope, { order: 'desc', limit: 1000 });
  const decisions = await of('decision');
  return {
    decision: decisions.map((record) => record.id),
    open_question: (await of('open_question')).map((record) => record.id),
    action_item: (await of('action_item')).map((record) => record.id),
    meeting: [...new Set(decisions.map((record) => (record as { meeting_id: string }).meeting_id))],
  };
}

function merge(a: IdsByKind, b: IdsByKind): IdsByKind {
  return {
    decision: [...a.decision, ...b.decision],
    open_question: [...a.open_question, ...b.open_question],
    action_item: [...a.action_item, ...b.action_item],
    meeting: [...a.meeting, ...b.meeting],
  };
}

/** First-page cursors of every paged read on the own deployment, taken from real answers. */
async function collectCursors(origin: string, token: string, deployment: string): Promise<Map<string, string[]>> {
  const cursors = new Map<string, string[]>();
  const paged = OPERATIONS.filter((op): op is AnyOperation => 'cursor' in op.input.shape);
  for (const op of paged) {
    const path = `/v1${op.path.replace('{deployment_id}', deployment)}`;
    const queries = op.name === 'searchMemory' ? ['q=renewal&limit=1', 'q=the&limit=2&types=statement'] : ['limit=1', 'limit=2&order=asc'];
    for (const query of queries) {
      const answer = await send(origin, jsonRequest('GET', `${path}?${query}`, token));
      const next = (answer.json as { next_cursor?: string | null } | undefined)?.next_cursor;
      if (typeof next === 'string') cursors.set(op.name, [...(cursors.get(op.name) ?? []), next]);
    }
  }
  return cursors;
}

/**
 * Tokens a careless verifier would accept. Most are signed with the core's real issuer key (read from its
 * settings), so only the claims are wrong; the rest are unsigned, signed with HS256, or with a stranger's key.
 */
async function forgeTokens(store: Store, origin: string, tenantId: string, otherTenantId: string, sample: string): Promise<string[]> {
  const stored = JSON.parse((await store.getSetting('issuer.signing-key')) ?? 'null') as JWK;
  const key = await importJWK(stored, 'ES256');
  const now = Math.floor(Date.now() / 1000);
  const good: JWTPayload = { oid: randomUUID(), tid: tenantId, azp: randomUUID(), roles: [], iss: `${origin}/${tenantId}/v2.0`, aud: 'api://meeting-memory', exp: now + 600, iat: now };
  const sign = (claims: JWTPayload, kid: string | undefined = stored.kid) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', ...(kid === undefined ? {} : { kid }) }).sign(key);
  const without = (claim: string): JWTPayload => Object.fromEntries(Object.entries(good).filter(([name]) => name !== claim));
  const stranger = (await generateKeyPair('ES256')).privateKey;
  const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const [header, payload] = sample.split('.') as [string, string];
  const swapped = { ...(JSON.parse(Buffer.from(payload, 'base64url').toString()) as JWTPayload), tid: otherTenantId };
  return Promise.all([
    sign({ ...good, exp: now - 3600, iat: now - 7200 }),
    sign(without('exp')),
    sign(without('oid')),
    sign(without('tid')),
    sign({ ...good, oid: '' }),
    sign({ ...good, oid: 42 as unknown as string }),
    sign({ ...good, aud: 'api://something-else' }),
    sign({ ...good, iss: `${origin}/${otherTenantId}/v2.0` }),
    sign({ ...good, tid: otherTenantId }),
    sign({ ...good, nbf: now + 3600 }),
    sign(without('azp')),
    sign(good, undefined),
    sign(good, 'not-a-known-kid'),
    new SignJWT(good).setProtectedHeader({ alg: 'ES256', kid: decodeProtectedHeader(sample).kid ?? 'k' }).sign(stranger),
    new SignJWT(good).setProtectedHeader({ alg: 'HS256', kid: stored.kid ?? 'k' }).sign(new TextEncoder().encode('a-shared-secret-guess-0123456789')),
    Promise.resolve(`${base64({ alg: 'none', typ: 'JWT' })}.${base64(good)}.`),
    Promise.resolve(`${header}.${base64(swapped)}.${sample.split('.')[2]}`),
  ]);
}

/**
 * Starts a demo core and adds a second tenant holding a copy of the Juniper meetings (so foreign records share
 * text with own ones), principals for every side, and the ids and cursors the generators use.
 */
export async function startFuzzWorld(): Promise<FuzzWorld> {
  // Limits raised so that every case reaches the handlers: 429 has its own tests, and a fuzz run sends a few
  // thousand 401s a minute from one address, which the default limits would turn into 429s for everyone.
  const core = await startDemoCore({ rateLimit: { perPrincipal: 1_000_000, perAddress: 1_000_000 } });
  const store = core.core.store;
  const origin = core.core.origin;
  const tenantId = core.creds.tenant_id;
  const [own, sibling] = core.creds.deployments.map((deployment) => deployment.id) as [string, string];
  const other = await store.createTenant({ name: 'Fuzz Other Co', region: 'ca' });
  const foreignDeployment = await store.createDeployment(other.id, { name: 'Juniper', platform: 'zoom', voice: 'alloy' });
  const foreignScope = { tenantId: other.id, deploymentId: foreignDeployment.id };
  for (const doc of demoDocuments(DEMO_DEPLOYMENTS[1]!)) await store.importMeeting(foreignScope, doc);

  const principals = await Promise.all([
    ...Array.from({ length: POOL }, (_, i) => addPrincipal(store, tenantId, `fuzz-reader-${i}`, [{ deploymentId: own, access: 'read' }])),
    ...Array.from({ length: POOL }, (_, i) => addPrincipal(store, tenantId, `fuzz-writer-${i}`, [{ deploymentId: own, access: 'read_write' }])),
    addPrincipal(store, tenantId, 'fuzz-sibling-reader', [{ deploymentId: sibling, access: 'read_write' }]),
    addPrincipal(store, other.id, 'fuzz-foreign-writer', [{ deploymentId: foreignDeployment.id, access: 'read_write' }]),
    addPrincipal(store, tenantId, 'fuzz-admin', [], true),
  ]);
  const tokens = await Promise.all(principals.map((principal) => tokenOf(origin, principal)));
  const readers = tokens.slice(0, POOL);
  const writers = tokens.slice(POOL, 2 * POOL);
  const outsiders = tokens.slice(2 * POOL, -1);
  const admins = tokens.slice(-1);

  const forged = await forgeTokens(store, origin, tenantId, other.id, tokens[0]!);
  const foreign = merge(await idsOf(store, { tenantId, deploymentId: sibling }), await idsOf(store, foreignScope));
  return {
    core,
    origin,
    dbFile: join(core.dataDir, 'memory.db'),
    readers,
    writers,
    outsiders,
    forged,
    admins,
    clientIds: principals.filter((principal) => principal.tenantId === tenantId).map((principal) => principal.clientId),
    deployments: { own, sibling, foreignTenant: foreignDeployment.id },
    own: await idsOf(store, { tenantId, deploymentId: own }),
    foreign,
    cursors: await collectCursors(origin, writers[0]!, own),
  };
}
