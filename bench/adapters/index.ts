// Checks per second through the Express and Koa adapters (store-memory, instant in-process
// providers) against each framework's bare JSON endpoint (parse the same body, answer a response
// of the same size) on the same machine. Two more endpoints put the adapter in front of a handler
// that answers at once: with the bare endpoint's answer (the adapter's own cost), and with a real
// check's answer and its dozen headers, taken from one check at start (the floor: what a check
// would cost through the framework if the service cost nothing). Check ÷ floor is the service's
// share, and each round also times the service alone (`handle` in a loop with as many checks in
// flight, no HTTP) for comparison. Prints figures, the server thread's CPU per request, and the ratios.
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
import { createSafetyService, type CoreHttpResponse, type SafetyService } from '@tron-safety/core';
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

/**
 * The service's CPU per check without HTTP: `handle` on this thread with CONNECTIONS checks in
 * flight, the same request as the endpoints (no Idempotency-Key). NaN without /proc.
 */
async function serviceAlone(service: SafetyService, { headers, body }: CheckPost, checks = 3000): Promise<number> {
  let left = checks;
  const before = mainThreadCpuUs() ?? NaN;
  const loop = async () => {
    while (left-- > 0) {
      const answer = await service.handle({ method: 'POST', path: '/v1/transaction/check', query: {}, headers, body });
      if (answer.status !== 200) throw new Error(`the service answered ${answer.status}: ${answer.body}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  return ((mainThreadCpuUs() ?? NaN) - before) / checks;
}

const FRAMEWORKS = ['express', 'koa'] as const;
type Framework = (typeof FRAMEWORKS)[number];
/** Issue 12's targets for check ÷ bare. */
const TARGETS: Record<Framework, number> = { express: 0.8, koa: 0.6 };
const ENDPOINTS = [
  ['bare JSON', '/bare'],
  ['adapter, instant handler', '/adapter'],
  ["adapter, a check's answer", '/floor'],
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
  // The bare endpoints answer a body of the size a check answers; the floor answers a real check's
  // answer, body and headers.
  const sample = await service.handle({
    method: 'POST',
    path: '/v1/transaction/check',
    query: {},
    headers: post.headers,
    body: post.body,
  });
  if (sample.status !== 200) throw new Error(`the sample check answered ${sample.status}: ${sample.body}`);

  const servers = {
    express: createServer(expressApp(service, sample)),
    koa: createServer(koaApp(service, sample).callback()),
  };
  const urls = { express: await listen(servers.express), koa: await listen(servers.koa) };
  console.log(
    `adapters bench: ${ROUNDS} rounds of ${SECONDS}s per endpoint, ${CONNECTIONS} connections, node ${process.version}`,
  );
  const { runs, alone } = await measure(urls, { service, post });
  report(runs, alone);
  await Promise.all(Object.values(servers).map((s) => new Promise((r) => s.close(r))));
  await service.close({ timeoutMs: 100 });
  await client.terminate();
}

/** A handler that answers at once: the adapter's own cost without the service's. */
const instantHandler = (answer: string) => ({
  handle: async () => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: answer }),
});

/**
 * A handler that answers at once with a real check's answer, its body and its headers, in a fresh
 * headers object as the service's are: the floor of a check through the adapter.
 */
const checkAnswerHandler = (sample: CoreHttpResponse) => ({
  handle: async (): Promise<CoreHttpResponse> => ({ status: 200, headers: { ...sample.headers }, body: sample.body }),
});

/** Express with the bare endpoint, the adapter before the two instant handlers, and the adapter before the service. */
function expressApp(service: SafetyService, sample: CoreHttpResponse) {
  const app = express();
  app.post('/bare', express.json(), (req, res) => {
    if (!req.body?.tx_hash) return res.status(400).end();
    res.type('application/json').send(sample.body);
  });
  app.use(safetyRouter(instantHandler(sample.body), { matches: (path) => path === '/adapter' }));
  app.use(safetyRouter(checkAnswerHandler(sample), { matches: (path) => path === '/floor' }));
  app.use(safetyRouter(service));
  return app;
}

/** Koa with the same four endpoints. */
function koaApp(service: SafetyService, sample: CoreHttpResponse) {
  const app = new Koa();
  app.use(safetyMiddleware(instantHandler(sample.body), { matches: (path) => path === '/adapter' }));
  app.use(safetyMiddleware(checkAnswerHandler(sample), { matches: (path) => path === '/floor' }));
  app.use(safetyMiddleware(service));
  app.use(async (ctx) => {
    if (ctx.path !== '/bare') return;
    let raw = '';
    for await (const chunk of ctx.req) raw += chunk;
    if (!(JSON.parse(raw) as { tx_hash?: string }).tx_hash) return void (ctx.status = 400);
    ctx.type = 'application/json';
    ctx.body = sample.body;
  });
  return app;
}

/**
 * Every endpoint once per round after a warm-up, every other round in reverse order: the runs by
 * endpoint, and the service's CPU per check alone, once per round.
 */
async function measure(
  urls: Record<Framework, string>,
  { service, post }: { service: SafetyService; post: CheckPost },
): Promise<{ runs: Map<string, Run[]>; alone: number[] }> {
  for (const framework of FRAMEWORKS) {
    for (const [, path] of ENDPOINTS) await load(urls[framework], path, post, 0.5); // warm up
  }
  await serviceAlone(service, post);
  const runs = new Map<string, Run[]>();
  const alone: number[] = [];
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
    alone.push(await serviceAlone(service, post));
    process.stderr.write(`round ${round}/${ROUNDS} done\n`);
  }
  return { runs, alone };
}

/** The table of medians and spreads, then each framework's ratios to its bare endpoint. */
function report(runs: Map<string, Run[]>, alone: number[]): void {
  console.log(
    'framework  endpoint                    checks/s (median, min..max)   p50 ms   p99 ms  server thread µs/request',
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
        `${framework.padEnd(9)}  ${name.padEnd(26)}  ${median(rates).toFixed(0).padStart(8)}  ${spread.padEnd(19)}  ${p('p50')}  ${p('p99')}  ${median(
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
    const both = (name: string) => `${ratio(name, rate)}, by CPU ${ratio(name, cpu)}`;
    // What a check adds to the floor, in µs of the server thread (the service's share), and what the
    // target leaves it: a check may cost bare ÷ target.
    const floor = of("adapter, a check's answer");
    const perRound = (value: (i: number) => number) => median(bare.map((_, i) => value(i))).toFixed(0);
    const added = perRound((i) => of('/v1/transaction/check')[i]!.cpuUs - floor[i]!.cpuUs);
    const allowed = perRound((i) => bare[i]!.cpuUs / TARGETS[framework] - floor[i]!.cpuUs);
    ratios.push(
      `${framework} ÷ bare, median (min..max) of the ${ROUNDS} per-round ratios, by rate and by the server thread's CPU per request:`,
      `  adapter, instant handler   ${both('adapter, instant handler')}`,
      `  adapter, a check's answer  ${both("adapter, a check's answer")}   <- the floor: a check whose service cost nothing`,
      `  /v1/transaction/check      ${both('/v1/transaction/check')}`,
      `  a check beyond the floor: ${added} µs of the server thread per request; the target ${TARGETS[framework]} leaves it ${allowed} µs (bare ÷ ${TARGETS[framework]} − floor; medians of per-round values)`,
    );
  }
  console.log(ratios.join('\n'));
  console.log(
    `the service alone (handle, ${CONNECTIONS} in flight, no HTTP): ${median(alone).toFixed(0)} µs of CPU per check (median, ${Math.min(...alone).toFixed(0)}..${Math.max(...alone).toFixed(0)})`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
