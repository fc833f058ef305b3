import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../../src/core/store/index.js';
import { openTestPostgresStore } from '../../helpers/postgres.js';
import { describeAdminAuditContract } from './store-contract-admin-audit.js';

describeAdminAuditContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mm-store-admin-'));
  const store = await openSqliteStore(join(dir, 'memory.db'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describeAdminAuditContract('postgres', openTestPostgresStore);
