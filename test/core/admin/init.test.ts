import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AlreadyInitialisedError, initDataDir, UnknownTenantError } from '../../../src/core/admin/init.js';
import { DEFAULT_AUDIENCE, startCore, type RunningCore } from '../../../src/core/server/serve.js';
import { requestToken } from '../../helpers/core.js';
import { SCOPE } from './admin-helpers.js';

const dirs: string[] = [];
const cores: RunningCore[] = [];

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mm-init-'));
  dirs.push(dir);
  return join(dir, 'data');
}

const options = (dataDir: string, extra: Partial<Parameters<typeof initDataDir>[0]> = {}) => ({
  dataDir,
  tenantName: 'Northwind',
  region: 'ca' as const,
  publicUrl: 'https://memory.northwind.example',
  audience: DEFAULT_AUDIENCE,
  ...extra,
});

describe('serve init', () => {
  it('creates the first tenant and an admin in a fresh data dir, and prints where to get a token', async () => {
    const dataDir = await freshDir();
    const result = await initDataDir(options(dataDir));
    expect(result).toMatchObject({
      data_dir: dataDir,
      tenant_name: 'Northwind',
      region: 'ca',
      operator: true,
      authority: `https://memory.northwind.example/${result.tenant_id}`,
      token_url: `https://memory.northwind.example/${result.tenant_id}/oauth2/v2.0/token`,
      scope: SCOPE,
      base_url: 'https://memory.northwind.example/v1',
    });
    expect(result.client_secret).toMatch(/^[A-Za-z0-9_-]{40}$/);
  });

  it('gives a token to the admin it created once the core runs, and the admin can administer', async () => {
    const dataDir = await freshDir();
    const result = await initDataDir(options(dataDir));
    const core = await startCore({ port: 0, host: '127.0.0.1', dataDir, demo: false, tls: { mode: 'off' }, issuer: { mode: 'builtin' } });
    cores.push(core);
    const token = await requestToken(`${core.origin}/${result.tenant_id}/oauth2/v2.0/token`, result.client_id, result.client_secret, SCOPE);
    const tenant = await fetch(`${core.baseUrl}/admin/tenant`, { headers: { authorization: `Bearer ${token}` } });
    expect(await tenant.json()).toMatchObject({ id: result.tenant_id, name: 'Northwind', region: 'ca' });
    const created = await fetch(`${core.baseUrl}/admin/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Aria', platform: 'meet', voice: 'verse' }),
    });
    expect(created.status).toBe(201);
  });

  it('refuses to run twice, unless asked for another admin or a further tenant', async () => {
    const dataDir = await freshDir();
    const first = await initDataDir(options(dataDir));
    await expect(initDataDir(options(dataDir))).rejects.toBeInstanceOf(AlreadyInitialisedError);

    const second = await initDataDir(options(dataDir, { forceNewAdmin: true, adminName: 'backup admin' }));
    expect(second).toMatchObject({ tenant_id: first.tenant_id, operator: true });
    expect(second.client_id).not.toBe(first.client_id);

    const further = await initDataDir(options(dataDir, { newTenant: true, tenantName: 'Fabrikam', region: 'us' }));
    expect(further).toMatchObject({ tenant_name: 'Fabrikam', region: 'us', operator: false });
    expect(further.tenant_id).not.toBe(first.tenant_id);

    const toFurther = await initDataDir(options(dataDir, { forceNewAdmin: true, tenantId: further.tenant_id }));
    expect(toFurther.tenant_id).toBe(further.tenant_id);
    await expect(initDataDir(options(dataDir, { forceNewAdmin: true, tenantId: '00000000-0000-4000-8000-000000000000' }))).rejects.toBeInstanceOf(
      UnknownTenantError,
    );
  });

  it('creates the tenant under a given id, as an Entra directory needs', async () => {
    const tenantId = '72f988bf-86f1-41af-91ab-2d7cd011db47';
    const result = await initDataDir(options(await freshDir(), { tenantId }));
    expect(result.tenant_id).toBe(tenantId);
  });
});
