import { afterAll } from 'vitest';
import { describeStoreContract } from './store-contract.js';
import { dropSchema, openTestPostgresStore } from '../../helpers/postgres.js';

type Opened = Awaited<ReturnType<typeof openTestPostgresStore>>;

// Migrating a fresh schema takes a few hundred ms: the next test's store is prepared while the current test runs,
// and used schemas are dropped once at the end rather than between tests.
let next: Promise<Opened> = openTestPostgresStore();
const used: string[] = [];

afterAll(async () => {
  const spare = await next;
  await spare.store.close();
  used.push(spare.schema);
  for (const schema of used) await dropSchema(schema);
});

describeStoreContract('postgres', async () => {
  const opened = await next;
  next = openTestPostgresStore();
  return {
    store: opened.store,
    cleanup: async () => {
      await opened.store.close();
      used.push(opened.schema);
    },
  };
});
