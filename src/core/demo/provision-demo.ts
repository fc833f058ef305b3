import { randomUUID } from 'node:crypto';
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { Access } from '../../contract/index.js';
import { generateSecret, hashSecret } from '../auth/secret-hash.js';
import type { Store } from '../store/store.js';
import { DEMO_DEPLOYMENTS } from './demo-content.js';
import { demoDocuments } from './demo-model.js';

export interface ProvisionDemoOptions {
  baseUrl: string;
  mcpUrl: string;
  /** The token authority of a tenant (it contains the tenant id, which only provisioning knows). */
  authority: (tenantId: string) => string;
  tokenUrl: (tenantId: string) => string;
  /** Audience of the memory API; principals request `${audience}/.default`. */
  audience: string;
  caFile: string | null;
  credentialsFile: string;
}

/** What `demo-credentials.json` holds: everything a client needs to call the demo core. */
export interface DemoCredentials {
  base_url: string;
  mcp_url: string;
  authority: string;
  token_url: string;
  tenant_id: string;
  ca_file: string | null;
  deployments: { id: string; name: string }[];
  principals: {
    client_id: string;
    client_secret: string;
    scope: string;
    grants: { deployment_id: string; access: Access }[];
  }[];
}

/** The demo's service principals: which demo deployment (by position) each may reach, and how. */
const DEMO_PRINCIPALS = [
  { displayName: 'demo-reader', deployment: 0, access: 'read' },
  { displayName: 'demo-writer', deployment: 0, access: 'read_write' },
  { displayName: 'demo-reader-juniper', deployment: 1, access: 'read' },
] as const;

const STATE_KEY = 'demo.state';

/** What provisioning created, kept in the store's settings so a second run finds and keeps it. */
const DemoState = z.object({
  tenantId: z.string(),
  deployments: z.array(z.object({ id: z.string(), name: z.string() })),
  principals: z.array(
    z.object({
      oid: z.string(),
      clientId: z.string(),
      displayName: z.string(),
      grants: z.array(z.object({ deploymentId: z.string(), access: Access })),
    }),
  ),
});
type DemoState = z.infer<typeof DemoState>;
type DemoPrincipal = DemoState['principals'][number];

interface IssuedSecret {
  principal: DemoPrincipal;
  secret: string;
}

interface Created {
  state: DemoState;
  /** Secrets of the principals this run created; every other principal gets a fresh one. */
  secrets: Map<string, string>;
}

async function createDemo(store: Store): Promise<Created> {
  const tenant = await store.createTenant({ name: 'Demo Co', region: 'us' });
  const deployments: DemoState['deployments'] = [];
  for (const content of DEMO_DEPLOYMENTS) {
    const created = await store.createDeployment(tenant.id, {
      name: content.name,
      platform: content.platform,
      voice: content.voice,
      avatarUrl: null,
    });
    deployments.push({ id: created.id, name: created.name });
  }
  const secrets = new Map<string, string>();
  const principals: DemoState['principals'] = [];
  for (const spec of DEMO_PRINCIPALS) {
    const deployment = deployments[spec.deployment];
    if (!deployment) throw new Error(`demo principal ${spec.displayName} names a missing deployment`);
    const oid = randomUUID();
    const clientId = randomUUID();
    const secret = generateSecret();
    await store.createPrincipal({
      tenantId: tenant.id,
      oid,
      clientId,
      displayName: spec.displayName,
      secretHash: await hashSecret(secret),
      isAdmin: false,
    });
    secrets.set(oid, secret);
    const grants = [{ deploymentId: deployment.id, access: spec.access }];
    principals.push({ oid, clientId, displayName: spec.displayName, grants });
  }
  const state: DemoState = { tenantId: tenant.id, deployments, principals };
  const json = JSON.stringify(state);
  const stored = await store.initSetting(STATE_KEY, json);
  if (stored === json) return { state, secrets };
  // A concurrent run stored its state first and wins; what this run created stays unused.
  return { state: DemoState.parse(JSON.parse(stored)), secrets: new Map() };
}

async function loadDemo(store: Store): Promise<Created | null> {
  const stored = await store.getSetting(STATE_KEY);
  if (stored === null) return null;
  const state = DemoState.parse(JSON.parse(stored));
  if (!(await store.getTenant(state.tenantId))) {
    throw new Error(`The demo state names tenant ${state.tenantId}, which is missing; start with a fresh data dir`);
  }
  return { state, secrets: new Map() };
}

/** Grants and meetings are written idempotently on every run, so an interrupted first run is completed later. */
async function fillDemo(store: Store, state: DemoState): Promise<void> {
  for (const principal of state.principals) {
    for (const grant of principal.grants) {
      await store.setGrant(state.tenantId, principal.oid, grant.deploymentId, grant.access);
    }
  }
  for (const [index, content] of DEMO_DEPLOYMENTS.entries()) {
    const deployment = state.deployments[index];
    if (!deployment) throw new Error(`The demo state lacks ${content.name}; start with a fresh data dir`);
    const scope = { tenantId: state.tenantId, deploymentId: deployment.id };
    for (const doc of demoDocuments(content)) await store.importMeeting(scope, doc);
  }
}

/** Each principal with its secret: a fresh one, unless this run just created the principal. */
async function issueSecrets(store: Store, { state, secrets }: Created): Promise<IssuedSecret[]> {
  const issued: IssuedSecret[] = [];
  for (const principal of state.principals) {
    const secret = secrets.get(principal.oid) ?? (await rotateSecret(store, state.tenantId, principal));
    issued.push({ principal, secret });
  }
  return issued;
}

/** Replaces the principal's secret hash, so the secret written before stops working. */
async function rotateSecret(store: Store, tenantId: string, principal: DemoPrincipal): Promise<string> {
  if (!(await store.getPrincipalByClientId(tenantId, principal.clientId))) {
    throw new Error(`The demo principal ${principal.displayName} is missing; start with a fresh data dir`);
  }
  const secret = generateSecret();
  await store.setPrincipalSecretHash(tenantId, principal.oid, await hashSecret(secret));
  return secret;
}

function credentialsOf(state: DemoState, issued: IssuedSecret[], options: ProvisionDemoOptions): DemoCredentials {
  return {
    base_url: options.baseUrl,
    mcp_url: options.mcpUrl,
    authority: options.authority(state.tenantId),
    token_url: options.tokenUrl(state.tenantId),
    tenant_id: state.tenantId,
    ca_file: options.caFile,
    deployments: state.deployments.map(({ id, name }) => ({ id, name })),
    principals: issued.map(({ principal, secret }) => ({
      client_id: principal.clientId,
      client_secret: secret,
      scope: `${options.audience}/.default`,
      grants: principal.grants.map((grant) => ({ deployment_id: grant.deploymentId, access: grant.access })),
    })),
  };
}

/** Secrets inside: readable by the owner only, and replaced atomically so no reader sees half a file. */
async function writeCredentials(file: string, credentials: DemoCredentials): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

/**
 * Provisions the demo once: tenant 'Demo Co' (region us), the Atlas and Juniper deployments with their meetings,
 * and three service principals (read and read_write on Atlas, read on Juniper). Later runs keep all data and only
 * give the principals new secrets. Writes the credentials file (mode 0600) and returns what it wrote.
 */
export async function provisionDemo(store: Store, options: ProvisionDemoOptions): Promise<DemoCredentials> {
  const demo = (await loadDemo(store)) ?? (await createDemo(store));
  await fillDemo(store, demo.state);
  const credentials = credentialsOf(demo.state, await issueSecrets(store, demo), options);
  await writeCredentials(options.credentialsFile, credentials);
  return credentials;
}
