import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Attribution } from '../../../src/contract/index.js';
import { startAgentStub, type AgentStub, type AgentStubOptions } from '../../../src/agent-stub/index.js';
import { createBackendInvoker, type BackendInvoker, type BackendInvokerOptions, type InvocationLogEntry } from '../../../src/core/backend/index.js';
import { memorySearchTool } from '../../../src/core/backend/memory-tool.js';
import { createSearchService } from '../../../src/core/search/search-service.js';
import { generateSecret, hashSecret } from '../../../src/core/auth/secret-hash.js';
import { DEFAULT_AUDIENCE } from '../../../src/core/server/serve.js';
import { openSqliteStore, type AgentBackend, type Scope, type Store } from '../../../src/core/store/index.js';
import { createEphemeralTlsMaterial } from '../../../src/tls/index.js';
import { requestToken, startDemoCore, type TestCore } from '../../helpers/core.js';

export const SECRET = 'core-backend-test-secret-0123456789';
export const SECRET_ENV = { MM_BACKEND_SECRET: SECRET };
export const SECRET_REF = 'env:MM_BACKEND_SECRET';
export const FALLBACK = 'One moment, I cannot answer that right now.';

/** One CA and certificate (127.0.0.1, localhost, agent.test) for every backend in a file: generating keys is the slow part. */
export const TLS = createEphemeralTlsMaterial(['127.0.0.1', 'agent.test']);

const speaker: Attribution = { kind: 'platform_identity', display_name: 'Ada Lovelace', idp_id: randomUUID() };

/** A store on disk with one tenant, two deployments (Atlas, Juniper) and a meeting in each that the other lacks. */
export interface TestMemory {
  store: Store;
  tenantId: string;
  atlas: { id: string; name: string };
  juniper: { id: string; name: string };
  atlasMeetingId: string;
  scope(deployment: { id: string }): Scope;
  register(deployment: { id: string }, backend: Partial<Omit<AgentBackend, 'updatedAt'>> & { url: string }): Promise<void>;
  close(): Promise<void>;
}

export async function openTestMemory(): Promise<TestMemory> {
  const dir = await mkdtemp(join(tmpdir(), 'mm-backend-'));
  const store = await openSqliteStore(join(dir, 'memory.db'));
  const tenant = await store.createTenant({ name: 'Backend tests', region: 'us' });
  const atlas = await store.createDeployment(tenant.id, { name: 'Atlas', platform: 'teams', voice: 'alloy' });
  const juniper = await store.createDeployment(tenant.id, { name: 'Juniper', platform: 'zoom', voice: 'verse' });
  const scope = (deployment: { id: string }) => ({ tenantId: tenant.id, deploymentId: deployment.id });
  const atlasMeeting = await store.importMeeting(scope(atlas), meetingAbout('atlas-launch', 'The launch date moves to June 3 for Atlas'));
  await store.importMeeting(scope(juniper), meetingAbout('juniper-launch', 'The launch date moves to September 9 for Juniper'));
  return {
    store,
    tenantId: tenant.id,
    atlas: { id: atlas.id, name: atlas.name },
    juniper: { id: juniper.id, name: juniper.name },
    atlasMeetingId: atlasMeeting.meetingId,
    scope,
    async register(deployment, backend) {
      await store.setAgentBackend(scope(deployment), {
        secretRef: SECRET_REF,
        timeoutMs: 5000,
        fallbackLine: FALLBACK,
        systemPrompt: null,
        updatedBy: randomUUID(),
        ...backend,
      });
    },
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function meetingAbout(externalId: string, decision: string) {
  return {
    meeting: {
      externalId,
      title: 'Launch planning',
      platform: 'teams' as const,
      startedAt: '2025-05-01T09:00:00Z',
      endedAt: '2025-05-01T09:30:00Z',
      organizer: speaker,
    },
    participants: [speaker],
    statements: [{ attribution: speaker, text: `${decision}, as agreed.`, spokenAt: '2025-05-01T09:05:00Z' }],
    decisions: [{ attribution: speaker, text: decision, decidedAt: '2025-05-01T09:06:00Z' }],
    openQuestions: [],
    actionItems: [],
    topics: [],
  };
}

/** A test memory for the enclosing describe block, and servers and invokers a test closes after itself. */
export interface BackendFixture {
  readonly memory: TestMemory;
  /** Closes this after the current test. */
  defer(close: () => Promise<void>): void;
}

/** Opens a test memory before the block's tests, closes what each test deferred after it, and the memory last. */
export function useBackendFixture(): BackendFixture {
  let memory: TestMemory | undefined;
  const closers: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    memory = await openTestMemory();
  });
  afterEach(async () => {
    while (closers.length > 0) await closers.pop()!();
  });
  afterAll(async () => {
    await memory?.close();
  });
  return {
    get memory() {
      return memory!;
    },
    defer: (close) => closers.push(close),
  };
}

/** An invoker over the test memory that trusts the test CA, allows loopback and collects its log lines. */
export function testInvoker(memory: TestMemory, options: Partial<BackendInvokerOptions> = {}): BackendInvoker & { logs: InvocationLogEntry[] } {
  const logs: InvocationLogEntry[] = [];
  const invoker = createBackendInvoker({
    store: memory.store,
    search: memorySearchTool(createSearchService({ store: memory.store })),
    policy: { allowLoopback: true, allowPrivate: false },
    extraCa: TLS.ca,
    env: SECRET_ENV,
    log: (entry) => logs.push(entry),
    ...options,
  });
  return Object.assign(invoker, { logs });
}

export interface TestStub extends AgentStub {
  calls: { verdict: string; status: number; round: number | null }[];
}

/** The real reference backend over TLS on 127.0.0.1 with the test certificate, its call log collected. */
export async function startTestStub(options: Partial<AgentStubOptions> = {}): Promise<TestStub> {
  const calls: TestStub['calls'] = [];
  const stub = await startAgentStub({
    secret: SECRET,
    port: 0,
    tls: { key: TLS.key, cert: TLS.cert },
    log: (entry) => calls.push({ verdict: entry.verdict, status: entry.status, round: entry.round }),
    ...options,
  });
  return { ...stub, calls };
}

/** A captured request: the exact bytes and headers that arrived. */
export interface Captured {
  body: Buffer;
  headers: IncomingMessage['headers'];
}

export interface ScriptedServer {
  url: string;
  received: Captured[];
  close(): Promise<void>;
}

/**
 * An https server on 127.0.0.1 with the test certificate that records each request and answers it with `handle`:
 * a backend that misbehaves on purpose, or a proxy in front of the stub.
 */
export async function startScriptedServer(
  handle: (captured: Captured, res: ServerResponse, index: number) => void | Promise<void>,
): Promise<ScriptedServer> {
  const received: Captured[] = [];
  const server: Server = createServer({ key: TLS.key, cert: TLS.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const captured = { body: Buffer.concat(chunks), headers: req.headers };
      received.push(captured);
      Promise.resolve(handle(captured, res, received.length - 1)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/agent`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * A proxy in front of the stub that forwards each request's headers as they came and its body through `alter`,
 * and relays the stub's answer: a man in the middle when `alter` changes the bytes.
 */
export async function startProxy(target: string, alter: (body: Buffer) => Buffer = (body) => body): Promise<ScriptedServer> {
  const dispatcher = new Agent({ connect: { ca: TLS.ca } });
  const proxy = await startScriptedServer(async (captured, res) => {
    const response = await request(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': String(captured.headers['x-service-signature'] ?? '') },
      body: alter(captured.body),
      dispatcher,
    });
    const text = await response.body.text();
    res.writeHead(response.statusCode, { 'content-type': String(response.headers['content-type'] ?? 'application/json') });
    res.end(text);
  });
  return {
    ...proxy,
    async close() {
      await proxy.close();
      await dispatcher.close();
    },
  };
}

/** The variable the core resolves the stub's secret reference from (the core runs in the test's process). */
export const ASK_SECRET_VAR = 'MM_ASK_SECRET';

export interface AskCore {
  t: TestCore;
  /** A token of an admin principal of the demo tenant. */
  adminToken: string;
  atlas: string;
  juniper: string;
  /** PUT the deployment's agent backend as the admin, the secret as `env:MM_ASK_SECRET`. */
  register(deployment: string, url: string, extra?: Record<string, unknown>): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/** A demo core that allows loopback backends and trusts the test CA, with an admin principal to ask through. */
export async function startAskCore(): Promise<AskCore> {
  process.env[ASK_SECRET_VAR] = SECRET;
  const t = await startDemoCore({ allowHttpLoopbackBackends: true, backendCa: TLS.ca });
  const secret = generateSecret();
  const admin = await t.core.store.createPrincipal({
    tenantId: t.creds.tenant_id,
    oid: randomUUID(),
    clientId: randomUUID(),
    displayName: 'ask-admin',
    secretHash: await hashSecret(secret),
    isAdmin: true,
  });
  const adminToken = await requestToken(t.creds.token_url, admin.clientId, secret, `${DEFAULT_AUDIENCE}/.default`);
  const [atlas, juniper] = t.creds.deployments.map((deployment) => deployment.id) as [string, string];
  return {
    t,
    adminToken,
    atlas,
    juniper,
    register: (deployment, url, extra = {}) =>
      callCore(t, adminToken, 'PUT', `/admin/deployments/${deployment}/agent-backend`, { url, secret_ref: `env:${ASK_SECRET_VAR}`, ...extra }),
    async stop() {
      await t.stop();
      delete process.env[ASK_SECRET_VAR];
    },
  };
}

/** The ask core for the enclosing describe block, and stubs that each test stops after itself. */
export interface AskFixture {
  readonly core: AskCore;
  stub(options?: Partial<AgentStubOptions>): Promise<TestStub>;
}

export function useAskCore(): AskFixture {
  let core: AskCore | undefined;
  const stubs: TestStub[] = [];
  beforeAll(async () => {
    core = await startAskCore();
  });
  afterEach(async () => {
    while (stubs.length > 0) await stubs.pop()!.close();
  });
  afterAll(async () => {
    await core?.stop();
  });
  return {
    get core() {
      return core!;
    },
    async stub(options = {}) {
      const started = await startTestStub(options);
      stubs.push(started);
      return started;
    },
  };
}

/** One JSON call on the core's REST surface with a bearer token. */
export async function callCore(t: TestCore, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${t.core.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}
