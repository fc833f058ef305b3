export type * from './store.js';
export { openSqliteStore } from './sqlite-store.js';
export { DatabaseSetupError, openPostgresStore, PostgresStore } from './postgres-store.js';
export type { PostgresCapabilities, PostgresStoreOptions } from './postgres-store.js';
