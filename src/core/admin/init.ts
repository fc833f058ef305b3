import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Region } from '../../contract/admin-records.js';
import { generateSecret, hashSecret } from '../auth/secret-hash.js';
import { DATABASE_FILE } from '../server/data-dir.js';
import { openSqliteStore } from '../store/index.js';
import type { Store, Tenant } from '../store/store.js';

const INIT_KEY = 'admin.init';

/**
 * What `memory serve init` recorded: the tenants it created, the first being the operator's. Admins of the
 * operator tenant alone may change what is shared by every tenant of the core (audit retention, the v1 schedule,
 * verifying the whole audit log).
 */
const InitState = z.object({ operatorTenantId: z.string(), tenantIds: z.array(z.string()) });
type InitState = z.infer<typeof InitState>;

/** The recorded init state of a store, or null before `memory serve init` ran on it. */
export async function readInitState(store: Store): Promise<InitState | null> {
  const stored = await store.getSetting(INIT_KEY);
  return stored === null ? null : InitState.parse(JSON.parse(stored));
}

/** True for the operator tenant, the first one `memory serve init` created. */
export async function isOperatorTenant(store: Store, tenantId: string): Promise<boolean> {
  return (await readInitState(store))?.operatorTenantId === tenantId;
}

export interface InitOptions {
  dataDir: string;
  tenantName: string;
  region: Region;
  /** A tenant id to create the tenant under (an Entra directory's id); default a new UUID. */
  tenantId?: string;
  /** On an initialised data dir: add another admin to `tenantId` (default the operator tenant). */
  forceNewAdmin?: boolean;
  /** On an initialised data dir: create a further tenant with its own first admin. */
  newTenant?: boolean;
  adminName?: string;
  /** The origin clients will reach the core at, for the token URL and authority printed. */
  publicUrl: string;
  audience: string;
}

/** What init prints, once: the secret is not kept anywhere but as its hash. */
export interface InitResult {
  data_dir: string;
  tenant_id: string;
  tenant_name: string;
  region: Region;
  operator: boolean;
  client_id: string;
  client_secret: string;
  object_id: string;
  authority: string;
  token_url: string;
  scope: string;
  base_url: string;
}

/** `memory serve init` ran before on this data dir, and neither --force-new-admin nor --new-tenant was given. */
export class AlreadyInitialisedError extends Error {
  constructor(readonly dataDir: string) {
    super(`${dataDir} is already initialised`);
    this.name = 'AlreadyInitialisedError';
  }
}

/** A tenant named by --tenant-id that this data dir does not hold. */
export class UnknownTenantError extends Error {
  constructor(readonly tenantId: string) {
    super(`no tenant ${tenantId} in this data dir`);
    this.name = 'UnknownTenantError';
  }
}

async function tenantFor(store: Store, state: InitState | null, options: InitOptions): Promise<{ tenant: Tenant; state: InitState }> {
  if (state && options.forceNewAdmin && !options.newTenant) {
    const id = options.tenantId ?? state.operatorTenantId;
    const tenant = await store.getTenant(id);
    if (!tenant) throw new UnknownTenantError(id);
    return { tenant, state };
  }
  if (state && !options.newTenant) throw new AlreadyInitialisedError(options.dataDir);
  const tenant = await store.createTenant({ id: options.tenantId, name: options.tenantName, region: options.region });
  const next: InitState = state
    ? { ...state, tenantIds: [...state.tenantIds, tenant.id] }
    : { operatorTenantId: tenant.id, tenantIds: [tenant.id] };
  await store.setSetting(INIT_KEY, JSON.stringify(next));
  return { tenant, state: next };
}

/**
 * Sets up a data dir for self-hosting without the demo, directly in its database (no server needed): the first
 * tenant and an admin service principal whose secret is returned once and stored only as a scrypt hash. A second
 * run is refused unless it asks for another admin (`forceNewAdmin`) or a further tenant (`newTenant`), the only
 * ways tenants are created: creating tenants needs the data dir, not a token.
 */
export async function initDataDir(options: InitOptions): Promise<InitResult> {
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const store = await openSqliteStore(join(options.dataDir, DATABASE_FILE));
  try {
    const { tenant, state } = await tenantFor(store, await readInitState(store), options);
    const secret = generateSecret();
    const principal = await store.createPrincipal({
      tenantId: tenant.id,
      oid: randomUUID(),
      clientId: randomUUID(),
      displayName: options.adminName ?? 'admin',
      secretHash: await hashSecret(secret),
      isAdmin: true,
    });
    const origin = options.publicUrl.replace(/\/+$/, '');
    return {
      data_dir: options.dataDir,
      tenant_id: tenant.id,
      tenant_name: tenant.name,
      region: tenant.region,
      operator: state.operatorTenantId === tenant.id,
      client_id: principal.clientId,
      client_secret: secret,
      object_id: principal.oid,
      authority: `${origin}/${tenant.id}`,
      token_url: `${origin}/${tenant.id}/oauth2/v2.0/token`,
      scope: `${options.audience}/.default`,
      base_url: `${origin}/v1`,
    };
  } finally {
    await store.close();
  }
}
