// Real host processes on one database: 4 Node processes, each with its own pool and service,
// check at the same moment. The quota is never oversold and one Idempotency-Key executes once.
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createSafetyService } from '@tron-safety/core';
import { instantChain, instantRisk, seedTenant } from '@tron-safety/core/testing';
import { createPostgresStores, migrate } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from '@tron-safety/store-postgres/testing';

const server = await startTestPostgres();
after(() => server.stop());
const PROCESSES = 4;
const HOST = fileURLToPath(new URL('./support/host-process.ts', import.meta.url));

interface Report {
  statuses: Array<{ status: number; replayed: boolean; code: string | null }>;
  executions: number;
}

/** Starts the processes, waits until each is ready, sends each its burst at once, collects the reports. */
async function burst(url: string, bursts: Array<{ apiKey: string; txs: string[]; idempotencyKey: string | null }>) {
  const children: ChildProcess[] = bursts.map(() =>
    fork(HOST, [url], {
      execArgv: ['--conditions=source', '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  try {
    await Promise.all(
      children.map((c) => new Promise((resolve, reject) => (c.once('message', resolve), c.once('exit', reject)))),
    );
    const reports = children.map(
      (c) =>
        new Promise<Report>(
          (resolve, reject) => (c.once('message', (m) => resolve(m as Report)), c.once('exit', reject)),
        ),
    );
    children.forEach((c, i) => c.send(bursts[i]!));
    return await Promise.all(reports);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill();
  }
}

const tx = () => randomBytes(32).toString('hex');

describe('store-postgres: 4 host processes on one database', { skip: server.skip }, () => {
  let database: TestDatabase;
  const admin = () =>
    createSafetyService(createPostgresStores({ pool: database.pool(2) }), {
      chain: instantChain(),
      risk: instantRisk(),
    });

  before(async () => {
    database = await server.createDatabase();
    await migrate(database.pool(1));
  });
  after(() => database?.drop());

  test('1,000 concurrent checks over 4 processes with a quota of 100: exactly 100 billed, 0 oversold', async () => {
    const service = admin();
    const { apiKey, organizationId } = await seedTenant(
      service,
      { monthlyQuota: 100 },
      '6f1c2a4e-0000-4000-8000-0000000000a1',
    );
    const reports = await burst(
      database.url,
      Array.from({ length: PROCESSES }, () => ({ apiKey, txs: Array.from({ length: 250 }, tx), idempotencyKey: null })),
    );
    const statuses = reports.flatMap((r) => r.statuses);
    assert.equal(statuses.length, 1000);
    assert.equal(statuses.filter((s) => s.status === 200).length, 100);
    const codes: Record<string, number> = {};
    for (const s of statuses) codes[String(s.code)] = (codes[String(s.code)] ?? 0) + 1;
    assert.ok(
      statuses.every((s) => s.status === 200 || (s.status === 429 && s.code === 'quota_exceeded')),
      JSON.stringify(codes),
    );
    const report = (await service.admin.usage({ kind: 'operator' }, organizationId))._unsafeUnwrap();
    assert.deepEqual({ used: report.period.used, reserved: report.period.reserved }, { used: 100, reserved: 0 });
    assert.equal(report.recent.billable, 100);
    assert.equal(report.recent.requests, 1000);
  });

  test('50 concurrent requests with one Idempotency-Key over 4 processes: executed once', async () => {
    const service = admin();
    const { apiKey, organizationId } = await seedTenant(service, {}, '6f1c2a4e-0000-4000-8000-0000000000a2');
    const same = tx();
    const reports = await burst(
      database.url,
      [13, 13, 12, 12].map((n) => ({ apiKey, txs: Array.from({ length: n }, () => same), idempotencyKey: 'order-50' })),
    );
    assert.equal(
      reports.reduce((sum, r) => sum + r.executions, 0),
      1,
      'the providers ran once in all processes together',
    );
    const statuses = reports.flatMap((r) => r.statuses);
    assert.equal(statuses.filter((s) => s.status === 200 && !s.replayed).length, 1);
    assert.ok(statuses.every((s) => s.status === 200 || (s.status === 409 && s.code === 'idempotency_in_progress')));
    const report = (await service.admin.usage({ kind: 'operator' }, organizationId))._unsafeUnwrap();
    assert.equal(report.period.used, 1, 'billed once');
  });
});
