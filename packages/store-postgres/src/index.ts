export { createPostgresStores, type PostgresStores, type SweepResult } from './stores.js';
export { openPool, type PoolHandle, type PostgresConnectionOptions } from './connection.js';
export { loadMigrations, migrate, type MigrateResult, type Migration } from './migrations.js';
export { PostgresApiKeyStore } from './api-keys.js';
export { PostgresIdempotencyStore } from './idempotency.js';
export { PostgresLimitStore } from './limits.js';
export { PostgresOrganizationStore } from './organizations.js';
export { PostgresQuotaStore } from './quota.js';
export { PostgresUsageStore } from './usage.js';
