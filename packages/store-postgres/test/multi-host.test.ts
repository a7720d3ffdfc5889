// Several host processes sharing one database, modelled as several independent pg.Pools (each
// with its own connections, as separate processes would have): the quota is never over-billed
// and one idempotency key executes once, whichever hosts the requests land on; first at the
// store level, then through the core's service.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createSafetyService, type CoreHttpResponse, type SafetyService } from '@tron-safety/core';
import { checkBody, instantChain, instantRisk, seedTenant, storedCheckResponse } from '@tron-safety/core/testing';
import { createPostgresStores, migrate, type PostgresStores } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from '@tron-safety/store-postgres/testing';

const server = await startTestPostgres();
after(() => server.stop());
const HOSTS = 3;
const T0 = new Date('2026-05-31T23:59:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('store-postgres: several hosts on one database', { skip: server.skip }, () => {
  let database: TestDatabase;
  let hosts: PostgresStores[];

  before(async () => {
    database = await server.createDatabase();
    hosts = Array.from({ length: HOSTS }, () => createPostgresStores({ pool: database.pool(10) }));
    await migrate(hosts[0]!.pool);
  });
  after(() => database?.drop());

  const host = (i: number) => hosts[i % HOSTS]!;

  test('300 concurrent reservations from 3 hosts against 100 units: exactly 100, billed once each', async () => {
    const organizationId = randomUUID();
    const attempts = Array.from({ length: 300 }, (_, i) => ({
      host: host(i),
      params: {
        organizationId,
        period: '2026-05',
        limit: 100,
        reservationId: randomUUID(),
        now: T0,
        expiresAt: at(60_000),
      },
    }));
    const outcomes = await Promise.all(attempts.map((a) => a.host.quota.reserve(a.params)));
    const granted = attempts.filter((_, i) => outcomes[i]!.ok);
    assert.equal(granted.length, 100);
    assert.ok(outcomes.every((o) => o.usage.used + o.usage.reserved <= 100));

    // Every granted reservation is committed twice at once, from two different hosts.
    const commits = await Promise.all(
      granted.flatMap((g, i) =>
        [1, 2].map((k) =>
          host(i + k).quota.commit({ organizationId, reservationId: g.params.reservationId, now: at(1000) }),
        ),
      ),
    );
    assert.equal(commits.filter((c) => c !== null).length, 100, 'each reservation bills exactly once');
    assert.deepEqual(await host(0).quota.getUsage({ organizationId, period: '2026-05', now: at(2000) }), {
      used: 100,
      reserved: 0,
    });
    assert.equal(
      (
        await host(1).quota.reserve({
          ...attempts[0]!.params,
          reservationId: randomUUID(),
          now: at(3000),
          expiresAt: at(63_000),
        })
      ).ok,
      false,
    );
  });

  test('reserve, then commit or release across hosts under churn: used + reserved never passes the limit', async () => {
    const organizationId = randomUUID();
    const limit = 20;
    let billed = 0;
    // 6 workers per host, each looping reserve → commit (1 in 3) or release.
    await Promise.all(
      Array.from({ length: HOSTS * 6 }, async (_, worker) => {
        for (let round = 0; round < 10; round++) {
          const reservationId = randomUUID();
          const reserved = await host(worker).quota.reserve({
            organizationId,
            period: '2026-05',
            limit,
            reservationId,
            now: T0,
            expiresAt: at(60_000),
          });
          assert.ok(reserved.usage.used + reserved.usage.reserved <= limit);
          if (!reserved.ok) continue;
          const finalizer = host(worker + round);
          if ((worker + round) % 3 === 0) {
            if (await finalizer.quota.commit({ organizationId, reservationId, now: at(1) })) billed++;
          } else {
            assert.notEqual(await finalizer.quota.release({ organizationId, reservationId, now: at(1) }), null);
          }
        }
      }),
    );
    const usage = await host(2).quota.getUsage({ organizationId, period: '2026-05', now: at(2) });
    assert.deepEqual(usage, { used: billed, reserved: 0 });
    assert.ok(billed <= limit);
  });

  test('a host that crashed holding a reservation and a slot blocks nobody once the leases end', async () => {
    const organizationId = randomUUID();
    const crashed = createPostgresStores({ pool: database.pool(2) });
    assert.equal(
      (
        await crashed.quota.reserve({
          organizationId,
          period: '2026-05',
          limit: 1,
          reservationId: randomUUID(),
          now: T0,
          expiresAt: at(30_000),
        })
      ).ok,
      true,
    );
    assert.equal(
      (
        await crashed.limits.acquireSlot({
          organizationId,
          slotId: 'crashed',
          limit: 1,
          now: T0,
          expiresAt: at(30_000),
        })
      ).ok,
      true,
    );
    await crashed.pool.end(); // the process is gone: its connections close, its rows stay

    const survivor = host(1);
    const reserve = (now: Date) =>
      survivor.quota.reserve({
        organizationId,
        period: '2026-05',
        limit: 1,
        reservationId: randomUUID(),
        now,
        expiresAt: at(90_000),
      });
    assert.equal((await reserve(at(29_999))).ok, false);
    assert.deepEqual(await reserve(at(30_000)), { ok: true, usage: { used: 0, reserved: 1 } });
    assert.equal(
      (
        await survivor.limits.acquireSlot({
          organizationId,
          slotId: 'next',
          limit: 1,
          now: at(29_999),
          expiresAt: at(90_000),
        })
      ).ok,
      false,
    );
    assert.equal(
      (
        await survivor.limits.acquireSlot({
          organizationId,
          slotId: 'next',
          limit: 1,
          now: at(30_000),
          expiresAt: at(90_000),
        })
      ).ok,
      true,
    );
  });

  test('one idempotency key, 150 concurrent requests over 3 hosts: the operation executes once, every replay is byte-identical', async () => {
    const scope = { organizationId: randomUUID(), key: 'pay-2026-05-0001' };
    const body = '{"request_id":"req-1","overall_state":"CLEAR","note":"ü \\u0000 \\ud83d\\ude00"}';
    const response = {
      status: 200,
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', 'X-Quota-Limit': '100' },
      body,
    };
    let executions = 0;
    const attempt = async (i: number) => {
      const stores = host(i);
      const owner = randomUUID();
      const begun = await stores.idempotency.begin(scope, {
        fingerprint: 'body-hash',
        owner,
        now: T0,
        leaseExpiresAt: at(30_000),
      });
      if (begun.kind !== 'started') return begun;
      executions++;
      await new Promise((resolve) => setTimeout(resolve, 20)); // the check runs
      assert.equal(
        await stores.idempotency.complete(scope, { owner, response, now: at(1), retainUntil: at(86_400_000) }),
        true,
      );
      return begun;
    };
    const first = await Promise.all(Array.from({ length: 150 }, (_, i) => attempt(i)));
    assert.equal(executions, 1);
    assert.equal(first.filter((o) => o.kind === 'started').length, 1);
    // The others arrived while it ran (409 in progress) or after it completed (replay).
    assert.ok(first.every((o) => o.kind === 'started' || o.kind === 'in_progress' || o.kind === 'completed'));
    assert.ok(first.some((o) => o.kind === 'in_progress'));

    const replays = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(i)));
    assert.equal(executions, 1, 'completed: never executed again');
    for (const replay of replays) {
      assert.equal(replay.kind, 'completed');
      if (replay.kind !== 'completed') continue;
      assert.equal(replay.response.body, body);
      assert.deepEqual(
        Object.entries(replay.response.headers),
        Object.entries(response.headers),
        'headers and their order',
      );
    }
  });

  test('rate window and concurrency slots are shared by every host', async () => {
    const organizationId = randomUUID();
    const windowStart = new Date('2026-05-31T23:59:00.000Z');
    const hits = await Promise.all(
      Array.from({ length: 90 }, (_, i) => host(i).limits.hitRate({ organizationId, windowStart, limit: 30, now: T0 })),
    );
    assert.equal(hits.filter((h) => h.allowed).length, 30);
    const slots = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        host(i).limits.acquireSlot({ organizationId, slotId: `slot-${i}`, limit: 4, now: T0, expiresAt: at(60_000) }),
      ),
    );
    assert.equal(slots.filter((s) => s.ok).length, 4);
  });
});

const txHash = () => randomBytes(32).toString('hex');

describe('store-postgres: the core service on two hosts sharing one database', { skip: server.skip }, () => {
  let database: TestDatabase;
  let stores: PostgresStores[];
  let hosts: SafetyService[];
  let apiKey: string;
  const chain = instantChain({ delayMs: 30 }); // shared, so `calls` counts executions on every host

  before(async () => {
    database = await server.createDatabase();
    await migrate(database.pool(1));
    stores = [0, 1].map(() => createPostgresStores({ pool: database.pool(10) }));
    hosts = stores.map((s) => createSafetyService(s, { chain, risk: instantRisk() }));
    ({ apiKey } = await seedTenant(hosts[0]!, { monthlyQuota: 10 }));
  });
  after(() => database?.drop());

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
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => check(hosts[i % 2]!, tx, { 'idempotency-key': 'order-1' })),
    );
    assert.equal(chain.calls - before, 1, 'the providers ran once');
    const first = responses.filter((r) => r.status === 200 && r.headers['Idempotent-Replayed'] !== 'true');
    assert.equal(first.length, 1);
    assert.ok(
      responses.every(
        (r) => r.status === 200 || (r.status === 409 && JSON.parse(r.body).error.code === 'idempotency_in_progress'),
      ),
    );
    const replay = await check(hosts[1]!, tx, { 'idempotency-key': 'order-1' });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['Idempotent-Replayed'], 'true');
    assert.equal(replay.body, first[0]!.body);
  });

  test("Idempotency: a result stored on PostgreSQL keeps its X-Request-ID, the body's request_id, so a 0.1.0 host's replay (the stored headers as they are) carries it; this version's replay on the other host carries it once", async () => {
    const tenant = await seedTenant(hosts[0]!, {}, randomUUID()); // its own quota: the other tests count theirs
    const tx = txHash();
    const call = { apiKey: tenant.apiKey, idempotencyKey: 'order-2' };
    const first = await hosts[0]!.check({ ...call, request: checkBody(tx), requestId: 'original-request' });
    const stored = await storedCheckResponse(stores[1]!, tenant.organizationId, 'order-2', tx);
    assert.ok(stored, 'the result is stored');
    assert.deepEqual(stored.headers, { 'X-Request-ID': 'original-request' });
    assert.equal(JSON.parse(stored.body).request_id, 'original-request');
    const replay = await hosts[1]!.check({ ...call, request: checkBody(tx), requestId: 'retry-request' });
    assert.equal(replay.replayed, true);
    assert.deepEqual(
      Object.entries(replay.headers).filter(([name]) => name.toLowerCase() === 'x-request-id'),
      [['X-Request-ID', 'original-request']],
    );
    assert.deepEqual(replay.body, first.body);
  });

  test('30 concurrent checks over 2 hosts with 9 units left: exactly 9 billed, the rest 429 quota_exceeded', async () => {
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => check(hosts[i % 2]!, txHash())));
    assert.equal(responses.filter((r) => r.status === 200).length, 9);
    for (const r of responses.filter((r) => r.status !== 200)) {
      assert.equal(r.status, 429);
      assert.equal(JSON.parse(r.body).error.code, 'quota_exceeded');
    }
    const usage = await hosts[0]!.handle({
      method: 'GET',
      path: '/v1/usage',
      query: {},
      headers: { 'x-api-key': apiKey },
      body: new Uint8Array(),
    });
    assert.equal(usage.status, 200);
    const period = JSON.parse(usage.body).period;
    assert.deepEqual(
      { used: period.used, reserved: period.reserved, remaining: period.remaining },
      { used: 10, reserved: 0, remaining: 0 },
    );
  });
});
