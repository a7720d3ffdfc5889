// Checks per second through the Express and Koa adapters (store-memory, instant in-process
// providers) against each framework's bare JSON endpoint (parse the same body, answer a response
// of the same size) on the same machine. A third endpoint puts the adapter in front of a handler
// that answers at once, separating the adapter's own cost from the service's. Prints figures, the
// server thread's CPU per request, and the ratios.
//
//   node --conditions=source --import tsx bench/adapters/index.ts [seconds per run, default 2] [rounds, default 5]
//
// The client runs on a thread of its own (load-worker.mjs), so the server's event loop does only the
// server's work, as with an external load generator; on a 2-core machine both share the cores. The machine is noisy, so every endpoint
// runs once per round (interleaved, every other round in reverse order) and the medians over the
// rounds are reported: a ratio is the median of the per-round ratios, each taken between runs
// seconds apart, so it need not equal the quotient of two medians (those may come from different rounds).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { safetyRouter } from '@tron-safety/adapters-express';
import { safetyMiddleware } from '@tron-safety/adapters-koa';
import { createSafetyService, type SafetyService } from '@tron-safety/core';
import { checkBody, instantChain, instantRisk, seedTenant } from '@tron-safety/core/fakes';
import { createMemoryStores } from '@tron-safety/store-memory';
import express from 'express';
import Koa from 'koa';
import { Worker } from 'node:worker_threads';
import { mainThreadCpuUs } from '../scale/process-cpu.js';

const SECONDS = Number(process.argv[2] ?? 2);
const ROUNDS = Number(process.argv[3] ?? 5);
const CONNECTIONS = 32;

interface Run {
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU µs of the server's thread per request (NaN without /proc). */
  cpuUs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The same check request for every endpoint. */
interface CheckPost {
  headers: Record<string, string>;
  body: Uint8Array;
}

const client = new Worker(new URL('./load-worker.mjs', import.meta.url));

/** One run of `seconds` against `url` + `path`, generated on the client thread. */
function load(url: string, path: string, { headers, body }: CheckPost, seconds: number): Promise<Run> {
  const before = mainThreadCpuUs() ?? NaN;
  return new Promise((resolve, reject) => {
    client.once('message', (answer: { run?: Omit<Run, 'cpuUs'> & { requests: number }; error?: string }) => {
      if (!answer.run) return reject(new Error(answer.error));
      const { requests, ...run } = answer.run;
      resolve({ ...run, cpuUs: ((mainThreadCpuUs() ?? NaN) - before) / requests });
    });
    client.postMessage({ url, path, headers, body, seconds, connections: CONNECTIONS });
  });
}

const FRAMEWORKS = ['express', 'koa'] as const;
type Framework = (typeof FRAMEWORKS)[number];
const ENDPOINTS = [
  ['bare JSON', '/bare'],
  ['adapter, instant handler', '/adapter'],
  ['/v1/transaction/check', '/v1/transaction/check'],
] as const;

async function main(): Promise<void> {
  const service = createSafetyService(createMemoryStores(), { chain: instantChain(), risk: instantRisk() });
  const { apiKey } = await seedTenant(service, {
    rateLimitPerMinute: 10_000_000,
    maxConcurrentRequests: 10_000,
    monthlyQuota: 100_000_000,
  });
  const post: CheckPost = {
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: checkBody('22'.repeat(32)),
  };
  // The bare endpoints answer a body of the size a check answers.
  const sample = await service.check({ apiKey, request: post.body });
  const answer = JSON.stringify(sample.body);

  const servers = {
    express: createServer(expressApp(service, answer)),
    koa: createServer(koaApp(service, answer).callback()),
  };
  const urls = { express: await listen(servers.express), koa: await listen(servers.koa) };
  console.log(
    `adapters bench: ${ROUNDS} rounds of ${SECONDS}s per endpoint, ${CONNECTIONS} connections, node ${process.version}`,
  );
  const runs = await measure(urls, post);
  report(runs);
  await Promise.all(Object.values(servers).map((s) => new Promise((r) => s.close(r))));
  await service.close({ timeoutMs: 100 });
  await client.terminate();
}

/** A handler that answers at once: the adapter's own cost without the service's. */
const instantHandler = (answer: string) => ({
  handle: async () => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: answer }),
});

/** Express with the bare endpoint, the adapter before an instant handler, and the adapter before the service. */
function expressApp(service: SafetyService, answer: string) {
  const app = express();
  app.post('/bare', express.json(), (req, res) => {
    if (!req.body?.tx_hash) return res.status(400).end();
    res.type('application/json').send(answer);
  });
  app.use(safetyRouter(instantHandler(answer), { matches: (path) => path === '/adapter' }));
  app.use(safetyRouter(service));
  return app;
}

/** Koa with the same three endpoints. */
function koaApp(service: SafetyService, answer: string) {
  const app = new Koa();
  app.use(safetyMiddleware(instantHandler(answer), { matches: (path) => path === '/adapter' }));
  app.use(safetyMiddleware(service));
  app.use(async (ctx) => {
    if (ctx.path !== '/bare') return;
    let raw = '';
    for await (const chunk of ctx.req) raw += chunk;
    if (!(JSON.parse(raw) as { tx_hash?: string }).tx_hash) return void (ctx.status = 400);
    ctx.type = 'application/json';
    ctx.body = answer;
  });
  return app;
}

/** Every endpoint once per round after a warm-up, every other round in reverse order; the runs by endpoint. */
async function measure(urls: Record<Framework, string>, post: CheckPost): Promise<Map<string, Run[]>> {
  for (const framework of FRAMEWORKS) {
    await load(urls[framework], '/bare', post, 0.5); // warm up
    await load(urls[framework], '/v1/transaction/check', post, 0.5);
  }
  const runs = new Map<string, Run[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    // Every other round runs in reverse order, so a load that rises or falls within a round does not
    // always favour the endpoint that runs first.
    const inOrder = <T>(list: readonly T[]) => (round % 2 ? list : [...list].reverse());
    for (const framework of inOrder(FRAMEWORKS)) {
      for (const [name, path] of inOrder(ENDPOINTS)) {
        const run = await load(urls[framework], path, post, SECONDS);
        runs.set(`${framework} ${name}`, [...(runs.get(`${framework} ${name}`) ?? []), run]);
      }
    }
    process.stderr.write(`round ${round}/${ROUNDS} done\n`);
  }
  return runs;
}

/** The table of medians and spreads, then each framework's ratios to its bare endpoint. */
function report(runs: Map<string, Run[]>): void {
  console.log(
    'framework  endpoint                  checks/s (median, min..max)   p50 ms   p99 ms  server thread µs/request',
  );
  const ratios: string[] = [];
  for (const framework of FRAMEWORKS) {
    const of = (name: string) => runs.get(`${framework} ${name}`)!;
    for (const [name] of ENDPOINTS) {
      const rates = of(name).map((r) => r.perSecond);
      const spread = `${Math.min(...rates).toFixed(0)}..${Math.max(...rates).toFixed(0)}`;
      const p = (q: 'p50' | 'p99') =>
        median(of(name).map((r) => r[q]))
          .toFixed(2)
          .padStart(7);
      console.log(
        `${framework.padEnd(9)}  ${name.padEnd(24)}  ${median(rates).toFixed(0).padStart(8)}  ${spread.padEnd(19)}  ${p('p50')}  ${p('p99')}  ${median(
          of(name).map((r) => r.cpuUs),
        )
          .toFixed(0)
          .padStart(8)}`,
      );
    }
    const bare = of('bare JSON');
    // Per round (runs seconds apart), not a quotient of the medians above, which come from different rounds.
    const ratio = (name: string, quotient: (run: Run, bareRun: Run) => number) => {
      const perRound = of(name).map((r, i) => quotient(r, bare[i]!));
      return `${median(perRound).toFixed(2)} (${Math.min(...perRound).toFixed(2)}..${Math.max(...perRound).toFixed(2)})`;
    };
    const rate = (r: Run, b: Run) => r.perSecond / b.perSecond;
    // The server thread's CPU per request, bare ÷ this endpoint: the ratio the rates would show if
    // that thread alone set them (the client thread and other processes take the rest of the cores).
    const cpu = (r: Run, b: Run) => b.cpuUs / r.cpuUs;
    ratios.push(
      `${framework}: adapter / bare = ${ratio('adapter, instant handler', rate)}, check / bare = ${ratio('/v1/transaction/check', rate)} (median (min..max) of the ${ROUNDS} per-round ratios); by the server thread's CPU per request, check / bare = ${ratio('/v1/transaction/check', cpu)}`,
    );
  }
  console.log(ratios.join('\n'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
