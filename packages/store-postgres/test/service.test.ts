// The core's service on PostgreSQL stores, as two host processes (two services, two pools) on
// one database: an idempotent check runs once whichever host gets it, and the monthly quota is
// billed exactly up to its limit across hosts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createSafetyService, type CoreHttpResponse, type SafetyService } from '@tron-safety/core';
import { checkBody, instantChain, instantRisk, seedTenant } from '@tron-safety/core/testing';
import { createPostgresStores, migrate } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from './postgres.js';

const server = await startTestPostgres();
const txHash = () => randomBytes(32).toString('hex');

describe('store-postgres: the service on two hosts sharing one database', { skip: server.skip }, () => {
  let database: TestDatabase;
  let hosts: SafetyService[];
  let apiKey: string;
  const chain = instantChain({ delayMs: 30 }); // shared, so `calls` counts executions on every host

  before(async () => {
    database = await server.createDatabase();
    await migrate(database.pool(1));
    hosts = [0, 1].map(() => createSafetyService(createPostgresStores({ pool: database.pool(10) }), { chain, risk: instantRisk() }));
    ({ apiKey } = await seedTenant(hosts[0]!, { monthlyQuota: 10 }));
  });
  after(async () => {
    await database?.drop();
    await server.stop();
  });

  const check = (host: SafetyService, tx: string, headers: Record<string, string> = {}): Promise<CoreHttpResponse> =>
    host.handle({
      method: 'POST',
      path: '/v1/transaction/check',
      query: {},
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...headers },
      body: checkBody(tx),
    });

  test('40 concurrent checks with one Idempotency-Key over 2 hosts: executed once, replayed byte for byte', async () => {
    const tx = txHash();
    const before = chain.calls;
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => check(hosts[i % 2]!, tx, { 'idempotency-key': 'order-1' })));
    assert.equal(chain.calls - before, 1, 'the providers ran once');
    const first = responses.filter((r) => r.status === 200 && r.headers['Idempotent-Replayed'] !== 'true');
    assert.equal(first.length, 1);
    assert.ok(responses.every((r) => r.status === 200 || (r.status === 409 && JSON.parse(r.body).error.code === 'idempotency_in_progress')));
    const replay = await check(hosts[1]!, tx, { 'idempotency-key': 'order-1' });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['Idempotent-Replayed'], 'true');
    assert.equal(replay.body, first[0]!.body);
  });

  test('30 concurrent checks over 2 hosts with 9 units left: exactly 9 billed, the rest 429 quota_exceeded', async () => {
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => check(hosts[i % 2]!, txHash())));
    assert.equal(responses.filter((r) => r.status === 200).length, 9);
    for (const r of responses.filter((r) => r.status !== 200)) {
      assert.equal(r.status, 429);
      assert.equal(JSON.parse(r.body).error.code, 'quota_exceeded');
    }
    const usage = await hosts[0]!.handle({ method: 'GET', path: '/v1/usage', query: {}, headers: { 'x-api-key': apiKey }, body: new Uint8Array() });
    assert.equal(usage.status, 200);
    const period = JSON.parse(usage.body).period;
    assert.deepEqual({ used: period.used, reserved: period.reserved, remaining: period.remaining }, { used: 10, reserved: 0, remaining: 0 });
  });
});
