/**
 * Provider round trips of a check, over real HTTP: a fake java-tron node and fake Chainalysis APIs in
 * another process, every answer delayed by the same fixed time on 127.0.0.1. One round trip = one
 * node call through the same client with warm connections, sampled next to every run so both see
 * the same machine load; each figure is the median of the per-run ratios, with their range.
 *
 * 1. Chain facts alone: 1 round trip when no token needs a metadata call (TRX, a registry token such
 *    as USDT, seeded and confirmed by the chain in `warmUp()`, a cached token), 2 for a token read
 *    cold (tx/info/blocks in parallel, then metadata).
 *    The nodes' network (block 0 of each node, see `network.ts`) is verified once per provider, beside
 *    its first check's lookups: counted below, the first check of a fresh provider (8 calls, 1 level)
 *    and a warm check (its 6 lookups, no extra call).
 * 2. A cold check's evidence (`gatherEvidence`: chain facts, transfer selection, sanctions, AML and
 *    token authenticity) of the USDT fixture with every cache empty and connections open: judged by
 *    its provider levels (target 2) and its time in round trips (target ≤ 2.2). Beside it, the flow
 *    it replaced (facts with the token's metadata read, then the risk lookups: 3 levels). Calls,
 *    opened connections and levels are counted from undici's diagnostics channels, not assumed.
 *
 *   node --conditions=source --import tsx bench/chain-facts/index.ts [runs] [delayMs]
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createRiskProviders,
  createTronChainFactsProvider,
  type TronChainFactsProviderOptions,
} from '@tron-safety/core';
import { TronNodeClient } from '@tron-safety/core/tron';
import { gatherEvidence, gatherSignals, selectTransfer, type EvidenceRequest } from '@tron-safety/core/internal';
import { TRON_FIXTURE_TX, USDT_CONTRACT } from '@tron-safety/core/fakes';
import { recorded, type Recorded } from './calls.js';

const here = dirname(fileURLToPath(import.meta.url));
const RUNS = Number(process.argv[2] ?? 25);
const DELAY_MS = Number(process.argv[3] ?? 50);
const PAYEE = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const signal = () => AbortSignal.timeout(30_000);

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

// The fakes run in a child process: their work must not share the measured event loop.
const child = spawn(
  process.execPath,
  ['--conditions=source', '--import', 'tsx', join(here, 'fakes-process.ts'), String(DELAY_MS)],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const urls = await new Promise<{ node: string; entity: string; sanctions: string }>((resolve, reject) => {
  child.stdout.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString())));
  child.once('exit', (code) => reject(new Error(`fakes exited with ${code}`)));
});
const chainOptions: TronChainFactsProviderOptions = { fullNodeUrl: urls.node, timeoutMs: 10 * DELAY_MS + 1000 };
const riskConfig = {
  chainalysisApiKey: 'bench',
  chainalysisApiUrl: urls.entity,
  chainalysisSanctionsApiKey: 'bench',
  chainalysisSanctionsUrl: urls.sanctions,
};

const client = new TronNodeClient(chainOptions);
await client.getNowBlock('full', signal());
const roundTrip = () =>
  timed(async () => {
    await client.getNowBlock('full', signal());
  });

/** Chain facts of `hash`: `cold` uses a fresh provider (empty metadata cache) whose connections are open. */
async function factsRatios(hash: string, cache: 'cold' | 'warm', options: Partial<TronChainFactsProviderOptions>) {
  const ratios: number[] = [];
  const warm = createTronChainFactsProvider({ ...chainOptions, ...options });
  await warm.getTransactionFacts(hash, { signal: signal() });
  for (let i = 0; i < RUNS; i++) {
    const trip = await roundTrip();
    const provider = cache === 'warm' ? warm : createTronChainFactsProvider({ ...chainOptions, ...options });
    if (cache === 'cold') await provider.warmUp();
    const t = await timed(async () => {
      const r = await provider.getTransactionFacts(hash, { signal: signal() });
      if (r.isErr() || r.value.state !== 'confirmed') throw new Error(`unexpected facts: ${JSON.stringify(r)}`);
    });
    ratios.push(t / trip);
    if (cache === 'cold') await provider.close();
  }
  await warm.close();
  return ratios;
}

/** Node calls of a TRX check: the first of a fresh provider (no warmUp, so it verifies the nodes' network), then a warm one. */
async function networkCalls(): Promise<{ first: Recorded; warm: Recorded }> {
  const provider = createTronChainFactsProvider(chainOptions);
  const check = async () => {
    const r = await provider.getTransactionFacts(TRON_FIXTURE_TX.trxTransfer, { signal: signal() });
    if (r.isErr() || r.value.missing.length > 0) throw new Error(`unexpected facts: ${JSON.stringify(r)}`);
  };
  const first = await recorded(check);
  const warm = await recorded(check);
  await provider.close();
  return { first, warm };
}

type Flow = 'two levels' | 'before';

/** The cold USDT check's evidence, the way `flow` gathers it. */
async function evidenceOf(flow: Flow, input: EvidenceRequest): Promise<void> {
  if (flow === 'two levels') {
    const evidence = (await gatherEvidence(input))._unsafeUnwrap();
    return expectAnswered(evidence.signals);
  }
  const facts = (await input.chain.getTransactionFacts(input.request.txHash, input.ctx))._unsafeUnwrap();
  const selection = selectTransfer(facts, input.request.expectations);
  expectAnswered(await gatherSignals(facts, selection.transfer, input.risk, input.ctx));
}

function expectAnswered(signals: Awaited<ReturnType<typeof gatherSignals>>): void {
  const statuses = [signals.sanctions?.status, signals.aml?.status, signals.token?.status];
  if (statuses.some((s) => s !== 'answered')) throw new Error(`unexpected signals: ${JSON.stringify(signals)}`);
}

const request = {
  txHash: TRON_FIXTURE_TX.usdtTransfer,
  expectations: { recipient: PAYEE, tokenContract: USDT_CONTRACT, amount: '41.677389' },
};

/** One cold check: fresh providers (empty caches), their connections opened first, then timed and counted. */
async function coldCheck(flow: Flow): Promise<{ ratio: number } & Recorded> {
  // The flow it replaced read the token's metadata from the node: no known tokens.
  const chain = createTronChainFactsProvider({ ...chainOptions, ...(flow === 'before' ? { knownTokens: [] } : {}) });
  await chain.warmUp();
  // The vendors' connections (undici's global pool) are opened by a check with throwaway caches.
  const throwaway = createTronChainFactsProvider(chainOptions);
  await evidenceOf(flow, {
    request,
    chain: throwaway,
    risk: createRiskProviders(riskConfig)._unsafeUnwrap(),
    ctx: { signal: signal() },
  });
  await throwaway.close();
  const risk = createRiskProviders(riskConfig)._unsafeUnwrap();
  const trip = await roundTrip();
  let ms = 0;
  const counted = await recorded(async () => {
    ms = await timed(() => evidenceOf(flow, { request, chain, risk, ctx: { signal: signal() } }));
  });
  await chain.close();
  return { ratio: ms / trip, ...counted };
}

const factsRows: [string, number[]][] = [
  ['USDT, cold cache (registry token: known)', await factsRatios(TRON_FIXTURE_TX.usdtTransfer, 'cold', {})],
  ['USDT, cold cache, knownTokens: []', await factsRatios(TRON_FIXTURE_TX.usdtTransfer, 'cold', { knownTokens: [] })],
  ['USDT, warm cache, knownTokens: []', await factsRatios(TRON_FIXTURE_TX.usdtTransfer, 'warm', { knownTokens: [] })],
  ['TRC10, cold cache', await factsRatios(TRON_FIXTURE_TX.trc10Transfer, 'cold', {})],
  ['TRX (no metadata)', await factsRatios(TRON_FIXTURE_TX.trxTransfer, 'warm', {})],
];

const network = await networkCalls();

const checks: Record<Flow, ({ ratio: number } & Recorded)[]> = { 'two levels': [], before: [] };
for (let i = 0; i < RUNS; i++) {
  // Every other run in reverse order, so drift within a run favours neither flow.
  const order: Flow[] = i % 2 ? ['before', 'two levels'] : ['two levels', 'before'];
  for (const flow of order) checks[flow].push(await coldCheck(flow));
}
child.stdin.end();
await client.close();

const summary = (ratios: number[]) =>
  `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}..${Math.max(...ratios).toFixed(2)})`;
const counts = (runs: Recorded[], key: keyof Recorded) => {
  const values = [...new Set(runs.map((r) => r[key]))].sort((a, b) => a - b);
  return values.join('/');
};

console.log(
  `delay ${DELAY_MS} ms per call (fakes in a separate process); ${RUNS} runs per row; ratio = time ÷ one node call's round trip`,
);
console.log('\nchain facts');
for (const [name, ratios] of factsRows) console.log(`  ${name.padEnd(44)} ${summary(ratios)} round trips`);
const { first, warm } = network;
console.log(
  `\nnetwork verification: first check of a fresh provider ${first.calls} node calls in ${first.levels} level(s), ` +
    `warm check ${warm.calls} in ${warm.levels} (target: warm 6, no call beyond its lookups): ` +
    (warm.calls === 6 && first.levels === 1 ? 'met' : 'NOT met'),
);
console.log(
  '\ncold USDT check (facts, selection, sanctions API, AML, token authenticity; empty caches, open connections)',
);
for (const flow of ['two levels', 'before'] as const) {
  const runs = checks[flow];
  console.log(
    `  ${flow.padEnd(12)} ${summary(runs.map((r) => r.ratio))} round trips; calls ${counts(runs, 'calls')}, ` +
      `connections opened ${counts(runs, 'connections')}, sequential provider levels ${counts(runs, 'levels')}`,
  );
}
const judged = checks['two levels'];
const ratio = median(judged.map((r) => r.ratio));
const levels = Math.max(...judged.map((r) => r.levels));
console.log(
  `\ncold USDT check: ${levels} provider levels, ${ratio.toFixed(2)}× one round trip (target: 2 levels, ≤ 2.2×): ` +
    (levels <= 2 && ratio <= 2.2 ? 'met' : 'NOT met'),
);
