import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../../src/core/server/data-dir.js';
import { openSqliteStore } from '../../../src/core/store/index.js';
import type { Store } from '../../../src/core/store/store.js';
import { ensureBuilt } from '../../helpers/build.js';
import { killServe, startServe } from './serve-child.js';

/** A data dir that `memory serve --demo` provisioned once, plus what the suite added to its store. */
export interface PreparedDataDir<T> {
  dataDir: string;
  dbFile: string;
  tenantId: string;
  /** The demo deployments, Atlas first. */
  deploymentIds: string[];
  extra: T;
}

/**
 * Builds the package if needed, lets the built `memory serve --demo` provision a fresh data dir, stops it cleanly,
 * and opens the store in this process to add what the suite needs (principals, a list of ids). Later starts run
 * without `--demo`, so the demo's credentials and everything added here stay as they are.
 */
export async function prepareDemoDataDir<T>(
  prefix: string,
  add: (store: Store, tenantId: string, deploymentIds: string[]) => Promise<T>,
): Promise<PreparedDataDir<T>> {
  await ensureBuilt();
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const first = await startServe(dataDir, { demo: true });
  await killServe(first, 'SIGTERM');
  const creds = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as {
    tenant_id: string;
    deployments: { id: string }[];
  };
  const deploymentIds = creds.deployments.map((deployment) => deployment.id);
  const dbFile = join(dataDir, DATABASE_FILE);
  const store = await openSqliteStore(dbFile);
  try {
    const extra = await add(store, creds.tenant_id, deploymentIds);
    return { dataDir, dbFile, tenantId: creds.tenant_id, deploymentIds, extra };
  } finally {
    await store.close();
  }
}
