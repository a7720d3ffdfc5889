// The core's store conformance suite, unchanged, against a real PostgreSQL server.
import { after, test } from 'node:test';
import { runStoreConformance } from '@tron-safety/core/testing';
import { createPostgresStores, migrate } from '../src/index.js';
import { startTestPostgres } from '@tron-safety/store-postgres/testing';

const server = await startTestPostgres();

if (server.skip) {
  test('store-postgres: store conformance', { skip: server.skip }, () => {});
} else {
  const database = await server.createDatabase();
  const pool = database.pool(10);
  await migrate(pool);
  after(async () => {
    await database.drop();
    await server.stop();
  });
  // The suite's ids are random, so every case may share this database and pool.
  runStoreConformance('store-postgres', () => ({ stores: createPostgresStores({ pool }) }));
}
