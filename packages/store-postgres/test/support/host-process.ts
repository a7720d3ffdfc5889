// One host process for the multi-process race test: its own pool on the shared database, the
// core service on it with an instant chain, and on the parent's "go" a burst of concurrent
// checks; it reports every status and how often its providers ran, then exits.
//   node --conditions=source --import tsx host-process.ts <database url>
import { createSafetyService, type CoreHttpResponse } from '@tron-safety/core';
import { checkBody, instantChain, instantRisk } from '@tron-safety/core/testing';
import { createPostgresStores } from '../../src/index.js';

interface Burst {
  apiKey: string;
  /** Transaction hashes to check, all at once. */
  txs: string[];
  idempotencyKey: string | null;
}

// Generous timeouts: this proves correctness under contention, on a loaded 2-core CI machine too.
const stores = createPostgresStores({
  connectionString: process.argv[2]!,
  max: 10,
  lockTimeoutMs: 60_000,
  statementTimeoutMs: 60_000,
  connectionTimeoutMs: 60_000,
});
const chain = instantChain({ delayMs: 20 });
const service = createSafetyService(stores, { chain, risk: instantRisk() }, { deadlineMs: 120_000 });

process.on('message', async (burst: Burst) => {
  const answers: CoreHttpResponse[] = await Promise.all(
    burst.txs.map((tx) =>
      service.handle({
        method: 'POST',
        path: '/v1/transaction/check',
        query: {},
        headers: {
          'x-api-key': burst.apiKey,
          'content-type': 'application/json',
          ...(burst.idempotencyKey ? { 'idempotency-key': burst.idempotencyKey } : {}),
        },
        body: checkBody(tx),
      }),
    ),
  );
  process.send!({
    statuses: answers.map((a) => ({
      status: a.status,
      replayed: a.headers['Idempotent-Replayed'] === 'true',
      code: a.status === 200 ? null : (JSON.parse(a.body) as { error: { code: string } }).error.code,
    })),
    executions: chain.calls,
  });
  await service.close();
  await stores.close();
  process.exit(0);
});
process.send!('ready');
