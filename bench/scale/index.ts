/**
 * The service at scale, in one run (issue 12's figures), on PostgreSQL against store-memory:
 *   1. PostgreSQL round trips per check, counted by a proxy on the wire: a first check with an
 *      Idempotency-Key, its replay, a check without a key;
 *   2. keyed checks per second through the host (Express adapter over HTTP, instant providers),
 *      PostgreSQL ÷ memory at 1, 8 and 32 clients;
 *   3. one busy tenant: checks per second of one organization ÷ the same load over 32, at 32 clients;
 *   4. `GET /v1/usage?days=90` latency at 0, 100k and 1M recorded checks, on both stores;
 *   5. service CPU per check (store-memory, instant providers, one at a time);
 *   6. /v1/transaction/check ÷ each framework's bare JSON endpoint (bench/adapters, in a process of its
 *      own once PostgreSQL has stopped, 1 s runs, 2 × rounds + 1 rounds).
 * Rounds are interleaved and every ratio is the median of per-round ratios (the machine is shared).
 * Beside 2., CPU µs per check from /proc: this process (host and load generator) on each store,
 * and the PostgreSQL processes.
 *
 *   node --conditions=source --import tsx bench/scale/index.ts [seconds per run, default 2] [rounds, default 3]
 *
 * SCALE_SECTIONS=throughput,tenant (any of roundtrips, throughput, tenant, usage, cpu, adapters) runs only those.
 * SCALE_PIN=1 puts PostgreSQL on a core of its own and this process on another (see cores.ts).
 * Uses TEST_DATABASE_URL when set, else a throwaway cluster (see store-postgres/src/testing.ts).
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { safetyRouter } from '@tron-safety/adapters-express';
import { createSafetyService, type SafetyService, type SafetyStores } from '@tron-safety/core';
import { utcDay, addDays } from '@tron-safety/core/internal';
import { checkBody, instantChain, instantRisk, seedTenant } from '@tron-safety/core/fakes';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createPostgresStores, migrate } from '@tron-safety/store-postgres';
import { startTestPostgres } from '@tron-safety/store-postgres/testing';
import express from 'express';
import { Pool } from 'undici';
import { cpuPerCheck } from '../check-cpu/index.js';
import { pinApart } from './cores.js';
import { ownCpuUs, serverCpu } from './process-cpu.js';
import { startCountingProxy } from './round-trips.js';

const SECONDS = Number(process.argv[2] ?? 2);
const ROUNDS = Number(process.argv[3] ?? 3);
const LIMITS = { rateLimitPerMinute: 100_000_000, maxConcurrentRequests: 100_000, monthlyQuota: 100_000_000 };
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const range = (values: number[]) => `${Math.min(...values).toFixed(2)}..${Math.max(...values).toFixed(2)}`;
const SECTIONS = new Set((process.env.SCALE_SECTIONS ?? 'roundtrips,throughput,tenant,usage,cpu,adapters').split(','));
const APPLICATION_NAME = 'tron-safety-bench';
const tx = () => randomUUID().replaceAll('-', '') + randomUUID().replaceAll('-', '');

const server = await startTestPostgres();
if (server.skip) {
  console.log(server.skip);
  process.exit(0);
}
const database = await server.createDatabase();
await migrate(database.pool(1));
const service = (stores: SafetyStores) => createSafetyService(stores, { chain: instantChain(), risk: instantRisk() });
let tenants = 0;
const tenant = (s: SafetyService) =>
  seedTenant(s, LIMITS, `6f1c2a4e-0000-4000-8000-${String(++tenants).padStart(12, '0')}`);

// ---- 1. round trips --------------------------------------------------------------------------
if (SECTIONS.has('roundtrips')) {
  const proxy = await startCountingProxy(new URL(database.url));
  const stores = createPostgresStores({ connectionString: proxy.url, max: 2 });
  const s = service(stores);
  const { apiKey } = await tenant(s);
  const post = (hash: string, key?: string) =>
    s.handle({
      method: 'POST',
      path: '/v1/transaction/check',
      query: {},
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: checkBody(hash),
    });
  await post(tx(), 'warm'); // connections opened, statements prepared
  const count = async (run: () => Promise<unknown>) => {
    const before = proxy.roundTrips;
    await run();
    return proxy.roundTrips - before;
  };
  const hash = tx();
  const first = await count(() => post(hash, 'order-1'));
  const replay = await count(() => post(hash, 'order-1'));
  const noKey = await count(() => post(tx()));
  console.log('PostgreSQL round trips per check (counted on the wire: Sync + Query messages)');
  console.log(`  first check with an Idempotency-Key ${first}, its replay ${replay}, without a key ${noKey}`);
  await stores.close();
  await proxy.close();
}

// ---- 2. and 3. throughput through the host ---------------------------------------------------------
async function host(stores: SafetyStores, organizations: number) {
  const s = service(stores);
  const keys = [];
  for (let i = 0; i < organizations; i++) keys.push((await tenant(s)).apiKey);
  const app = express();
  app.use(safetyRouter(s));
  const http = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, keys, close: () => http.close() };
}

interface Run {
  /** Checks per second. */
  rate: number;
  /** CPU µs per check: this process (host and load generator), and PostgreSQL's processes. */
  host: number;
  server: number;
}

async function load(url: string, keys: string[], clients: number, seconds: number): Promise<Run> {
  const pool = new Pool(url, { connections: clients, pipelining: 1 });
  let done = 0;
  const end = performance.now() + seconds * 1000;
  const [host, server] = [ownCpuUs(), await pgCpu?.sample()];
  const began = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      const apiKey = keys[client % keys.length]!;
      while (performance.now() < end) {
        const res = await pool.request({
          method: 'POST',
          path: '/v1/transaction/check',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: checkBody(tx()),
        });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - began) / 1000;
  const [hostAfter, serverAfter] = [ownCpuUs(), await pgCpu?.sample()];
  await pool.close();
  const perCheck = (a: number | undefined, b: number | undefined) => (a === undefined ? NaN : (b! - a) / done);
  return { rate: done / elapsed, host: perCheck(host, hostAfter), server: perCheck(server, serverAfter) };
}

const pgStores = createPostgresStores({ connectionString: database.url, max: 32, applicationName: APPLICATION_NAME });
const pgCpu = await serverCpu(pgStores.pool, {
  ownCluster: !process.env.TEST_DATABASE_URL,
  applicationName: APPLICATION_NAME,
});
if (process.env.SCALE_PIN) console.log(`\n${await pinApart(pgStores.pool, !process.env.TEST_DATABASE_URL)}`);
const pgHost = await host(pgStores, 32);
const memHost = await host(createMemoryStores(), 1);
const µs = (values: number[]) =>
  `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}..${Math.max(...values).toFixed(0)})`;
if (SECTIONS.has('throughput')) {
  console.log(
    `\nKeyed checks per second through the host (Express, HTTP, instant providers), ${ROUNDS} rounds of ${SECONDS} s`,
  );
  const cpu: string[] = [];
  for (const clients of [1, 8, 32]) {
    const ratios: number[] = [];
    const pg: Run[] = [];
    const mem: Run[] = [];
    await load(pgHost.url, pgHost.keys.slice(0, 1), clients, 0.5);
    await load(memHost.url, memHost.keys, clients, 0.5);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [0, 1] : [1, 0];
      const runs: Run[] = [];
      for (const which of order) {
        runs[which] = await load(
          which ? memHost.url : pgHost.url,
          which ? memHost.keys : pgHost.keys.slice(0, 1),
          clients,
          SECONDS,
        );
      }
      pg.push(runs[0]!);
      mem.push(runs[1]!);
      ratios.push(runs[0]!.rate / runs[1]!.rate);
    }
    console.log(
      `  ${String(clients).padStart(2)} clients: postgres ${median(pg.map((r) => r.rate))
        .toFixed(0)
        .padStart(5)}/s  memory ${median(mem.map((r) => r.rate))
        .toFixed(0)
        .padStart(5)}/s  postgres ÷ memory ${median(ratios).toFixed(2)} (${range(ratios)})`,
    );
    cpu.push(
      `  ${String(clients).padStart(2)} clients: host on memory ${µs(mem.map((r) => r.host))}, host on postgres ${µs(pg.map((r) => r.host))}, postgres server ${µs(pg.map((r) => r.server))}`,
    );
  }
  console.log(`CPU µs per check, median (range) of the rounds; the host process includes the load generator;`);
  console.log(`the server is ${pgCpu?.scope ?? 'not measured (no /proc for its processes)'}`);
  for (const line of cpu) console.log(line);
}
if (SECTIONS.has('tenant')) {
  const ratios: number[] = [];
  const one: number[] = [];
  const many: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = (await load(pgHost.url, pgHost.keys.slice(0, 1), 32, SECONDS)).rate;
    const b = (await load(pgHost.url, pgHost.keys, 32, SECONDS)).rate;
    one.push(a);
    many.push(b);
    ratios.push(a / b);
  }
  console.log(
    `\nOne busy tenant on PostgreSQL, 32 clients: one organization ${median(one).toFixed(0)}/s, spread over 32 ${median(many).toFixed(0)}/s, one ÷ many ${median(ratios).toFixed(2)} (${range(ratios)})`,
  );
}
pgHost.close();
memHost.close();

// ---- 4. usage report latency -------------------------------------------------------------------------
async function usageLatency(s: SafetyService, apiKey: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    const r = await s.handle({
      method: 'GET',
      path: '/v1/usage',
      query: { days: '90' },
      headers: { 'x-api-key': apiKey },
      body: new Uint8Array(),
    });
    times.push(performance.now() - started);
    if (r.status !== 200) throw new Error(`usage: HTTP ${r.status}`);
  }
  return median(times);
}

/**
 * Brings the organization to `n` recorded checks spread over the last 90 days. Memory records
 * each one; PostgreSQL gets the daily rows those checks leave (one upsert per day with their
 * counts: the same rows, without a million round trips), beside 1,000 other organizations'
 * 90 days so the table is not trivially small.
 */
async function recordChecks(stores: SafetyStores, organizationId: string, n: number, postgres: boolean): Promise<void> {
  const today = utcDay(new Date());
  if (postgres) {
    await pgStores.pool.query(
      `INSERT INTO usage_days AS d (organization_id, day, requests, billable, limited_data, errors, latency_sum_ms,
                                    latency_count, by_network, by_overall_state, latency_histogram)
       SELECT o, $2::date - k, c, c, 0, 0, 20 * c, c, jsonb_build_object('tron', c), jsonb_build_object('CLEAR', c),
              array_fill(0, ARRAY[14]) || ARRAY[c] || array_fill(0, ARRAY[27])
         FROM (SELECT $1::text AS o, k, ($3::integer / 90 + CASE WHEN k < $3::integer % 90 THEN 1 ELSE 0 END) AS c
                 FROM generate_series(0, 89) k
               UNION ALL
               SELECT 'other-' || g, k, 100 FROM generate_series(1, $4::integer) g, generate_series(0, 89) k) x
       ON CONFLICT (organization_id, day) DO UPDATE SET requests = d.requests + EXCLUDED.requests,
         billable = d.billable + EXCLUDED.billable, latency_sum_ms = d.latency_sum_ms + EXCLUDED.latency_sum_ms,
         latency_count = d.latency_count + EXCLUDED.latency_count`,
      [organizationId, today, n, n === 0 ? 0 : 1000],
    );
    await pgStores.pool.query('ANALYZE usage_days'); // as autovacuum would after such a load
    return;
  }
  for (let i = 0; i < n; i++) {
    await stores.usage.recordUsage({
      organizationId,
      at: new Date(`${addDays(today, -(i % 90))}T12:00:00.000Z`),
      network: 'tron',
      overallState: 'CLEAR',
      coverage: 'complete',
      billable: true,
      latencyMs: 20 + (i % 400),
      errorCode: null,
    });
  }
}

if (SECTIONS.has('usage')) console.log('\nGET /v1/usage?days=90, median of 200 calls (in process)');
for (const [name, stores] of !SECTIONS.has('usage')
  ? []
  : ([
      ['postgres', pgStores],
      ['memory', createMemoryStores()],
    ] as const)) {
  const s = service(stores);
  const { apiKey, organizationId } = await tenant(s);
  const figures: string[] = [];
  let recorded = 0;
  for (const n of [0, 100_000, 1_000_000]) {
    await recordChecks(stores, organizationId, n - recorded, name === 'postgres');
    recorded = n;
    figures.push(`${n.toLocaleString('en')} checks ${(await usageLatency(s, apiKey)).toFixed(2)} ms`);
  }
  console.log(`  ${name.padEnd(8)} ${figures.join(', ')}`);
}

// ---- 5. CPU per check ------------------------------------------------------------------------------------
if (SECTIONS.has('cpu')) {
  const { median: perCheck, all } = await cpuPerCheck(20_000, ROUNDS);
  console.log(
    `\nService CPU per check (store-memory, instant providers, keyed, one at a time): ${perCheck.toFixed(1)} µs (${range(all)})`,
  );
}

await pgStores.close();
await database.drop();
await server.stop();

// ---- 6. check ÷ bare framework endpoint ------------------------------------------------------------------
// Its own process, so the server's thread is measured alone, as `bench/adapters` does when run by itself.
if (SECTIONS.has('adapters')) {
  console.log('\n/v1/transaction/check ÷ bare JSON endpoint (bench/adapters):');
  const adapters = fileURLToPath(new URL('../adapters/index.ts', import.meta.url));
  const run = spawnSync(process.execPath, [...process.execArgv, adapters, '1', String(2 * ROUNDS + 1)], {
    stdio: 'inherit',
  });
  if (run.status !== 0) process.exitCode = 1;
}
