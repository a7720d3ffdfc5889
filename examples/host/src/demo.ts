#!/usr/bin/env node
// `npm run demo`: fully offline. A fake java-tron node serves recorded mainnet transactions, a
// fake Chainalysis server gives DEMO risk answers, the real host (in-memory stores) serves the real
// API on top, a handful of checks run over HTTP, and the host stays up for curl until Ctrl-C.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hexToBase58Address } from '@tron-safety/core/tron';
import {
  bundledSdnEntries,
  startFakeChainalysis,
  startFakeOfac,
  startFakeTronNode,
  TRON_FIXTURE_TX,
  USDT_CONTRACT,
} from '@tron-safety/core/fakes';
import { request } from 'undici';
import { parseConfig, type HostConfig } from './config.js';
import { startHost } from './host.js';
import { createLogger } from './log.js';

const DEMO_KEY = 'tsk_live_demo_0000000000000000000000000000';
const DEMO_ORG = '0f5e3f3c-7d1a-4c59-9a43-2d1de0a0c0de';
/** The demo organization's owner in the developer portal. */
const DEMO_MEMBER = { email: 'demo@example.com', password: 'demo portal password' };
/** Sender of the recorded TRX transfer (in no other fixture): the DEMO AML answer calls it high risk. */
const DEMO_HIGH_RISK = hexToBase58Address('4121b72c741caed659bf48c3fa2b717b007c20fb4b')!;

const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

async function main(): Promise<void> {
  const parsed = parseConfig({ LOG_LEVEL: 'warn', ...process.env });
  if (parsed.isErr()) throw new Error(parsed.error.message);

  console.log(bold('TRON transaction safety service: offline demo'));
  const fakes = await startDemoFakes();
  const seedFile = writeDemoSeed();
  const config = demoConfig(parsed.value, fakes, seedFile);
  const logger = createLogger(config.logLevel);
  let started = await startHost(config, logger);
  if (started.isErr() && started.error.field === 'PORT') started = await startHost({ ...config, port: 0 }, logger);
  if (started.isErr()) throw new Error(started.error.message);
  const host = started.value;
  await host.sanctions.firstRefresh();
  console.log(`  host                ${host.url}  (${config.framework}, in-memory stores, seeded from ${seedFile})`);
  console.log(`  demo API key        ${bold(DEMO_KEY)}`);
  console.log(
    `  developer portal    ${host.url}/portal/  (sign in as ${DEMO_MEMBER.email}, password '${DEMO_MEMBER.password}')\n`,
  );

  await runDemoChecks(host.url, fakes.node.failedUsdtTx);
  // Listen before saying so: a Ctrl-C right after the prompt must stop the host gracefully.
  const stopped = stopOnSignal(host, fakes);
  printTryCommands(host.url);
  await stopped;
}

type DemoFakes = Awaited<ReturnType<typeof startDemoFakes>>;

/** The local fake servers the demo's host reads: a java-tron node, Chainalysis and the OFAC list. */
async function startDemoFakes() {
  const node = await startFakeTronNode();
  console.log(`  fake java-tron node ${node.url}  (recorded mainnet responses from packages/core/fixtures/tron)`);
  const vendors = await startFakeChainalysis({
    defaultEntity: { risk: 'Low' },
    entities: {
      [DEMO_HIGH_RISK]: {
        risk: 'High',
        riskReason: 'DEMO: invented for this demo',
        exposures: [{ category: 'darknet market', value: 12_500, exposureType: 'direct' }],
      },
    },
  });
  console.log(
    `  fake Chainalysis    ${vendors.entityUrl.replace(/\/api\/risk$/, '')}  (DEMO risk data: every address Low, ${DEMO_HIGH_RISK} High; not real screening)`,
  );

  // The host refreshes its OFAC list from here: the bundled snapshot's addresses republished as today's list.
  const ofac = await startFakeOfac({
    published: new Date(new Date().toISOString().slice(0, 10)),
    entries: bundledSdnEntries(),
  });
  console.log(
    `  fake OFAC list      ${ofac.url}  (DEMO sanctions data: the bundled snapshot republished as today's list; not OFAC's current list)`,
  );
  return { node, vendors, ofac };
}

/** The seed file of the demo host: one plan, the demo organization with its key and portal owner. */
function writeDemoSeed(): string {
  const seedDir = mkdtempSync(join(tmpdir(), 'tron-safety-demo-'));
  const seedFile = join(seedDir, 'seed.json');
  writeFileSync(
    seedFile,
    JSON.stringify({
      plans: [
        {
          code: 'demo',
          version: 1,
          name: 'Demo',
          rate_limit_per_minute: 600,
          max_concurrent_requests: 8,
          monthly_quota: 1000,
          enabled_networks: ['tron'],
        },
      ],
      organizations: [
        {
          id: DEMO_ORG,
          name: 'Demo merchant',
          status: 'active',
          plan: { code: 'demo', version: 1 },
          custom_entitlements: null,
          api_keys: [{ label: 'demo', key: DEMO_KEY, revoked: false }],
          members: [{ ...DEMO_MEMBER, role: 'owner' }],
        },
      ],
    }),
  );
  return seedFile;
}

/** The environment's configuration pointed at the fakes and the seed file, on in-memory stores. */
function demoConfig(parsed: HostConfig, { node, vendors, ofac }: DemoFakes, seedFile: string): HostConfig {
  return {
    ...parsed,
    seedFile,
    databaseUrl: null,
    tronFullNodeUrl: node.url,
    tronSolidityUrl: node.url,
    ofac: { ...parsed.ofac, url: ofac.url },
    risk: {
      ...parsed.risk,
      chainalysisApiUrl: vendors.entityUrl,
      chainalysisApiKey: 'demo',
      chainalysisSanctionsUrl: vendors.sanctionsUrl,
      chainalysisSanctionsApiKey: 'demo',
    },
  };
}

/** What the demo reads of a check's answer (a result or an error envelope). */
interface DemoAnswer {
  error?: { code?: string };
  transaction_state: string;
  overall_state: string;
  reasons: { code: string }[];
  transfers?: { recipient?: string; amount?: string }[];
}

type CheckBody = { tx_hash: string; [field: string]: unknown };

// What the first check reads decides what the expected-payment checks expect.
const demoCases = (
  paid: { recipient?: string; amount?: string },
  failedUsdtTx: string,
): { label: string; body: CheckBody }[] => [
  { label: 'TRX transfer', body: { tx_hash: TRON_FIXTURE_TX.trxTransferToNewAccount, network: 'tron' } },
  {
    label: 'USDT payment, expected recipient/token/amount',
    body: {
      tx_hash: TRON_FIXTURE_TX.usdtTransfer,
      network: 'tron',
      expected_recipient: paid.recipient,
      expected_token_contract: USDT_CONTRACT,
      expected_amount: paid.amount,
    },
  },
  {
    label: 'same USDT payment, wrong expected amount',
    body: {
      tx_hash: TRON_FIXTURE_TX.usdtTransfer,
      network: 'tron',
      expected_recipient: paid.recipient,
      expected_token_contract: USDT_CONTRACT,
      expected_amount: '1000000',
    },
  },
  { label: 'USDT call that ran out of energy', body: { tx_hash: failedUsdtTx, network: 'tron' } },
  { label: 'TRX from a DEMO high-risk sender', body: { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' } },
  { label: 'TRC10 token transfer', body: { tx_hash: TRON_FIXTURE_TX.trc10Transfer, network: 'tron' } },
  { label: 'vote (not a payment)', body: { tx_hash: TRON_FIXTURE_TX.voteWitness, network: 'tron' } },
  { label: 'unknown transaction', body: { tx_hash: 'ab'.repeat(32), network: 'tron' } },
];

/** Runs the demo's checks over HTTP, printing each state as it comes and then the table of all. */
async function runDemoChecks(hostUrl: string, failedUsdtTx: string): Promise<void> {
  const check = async (body: object) => {
    const res = await request(`${hostUrl}/v1/transaction/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': DEMO_KEY },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, json: (await res.body.json()) as DemoAnswer };
  };
  const rows: string[][] = [];
  const total = 1 + demoCases({}, failedUsdtTx).length;
  const run = async (label: string, body: CheckBody) => {
    process.stdout.write(`  [${rows.length + 1}/${total}] ${label} ... `);
    const { status, json } = await check(body);
    if (status !== 200) {
      console.log(`HTTP ${status} ${json.error?.code}`);
      rows.push([label, `${body.tx_hash.slice(0, 10)}…`, `HTTP ${status}`, json.error?.code ?? '', '']);
      return json;
    }
    console.log(`${json.overall_state}`);
    const reasons = json.reasons.map((r) => r.code).join(', ');
    rows.push([label, `${body.tx_hash.slice(0, 10)}…`, json.transaction_state, json.overall_state, reasons]);
    return json;
  };

  // Every check the demo makes is in the table, the one that reads the payment included.
  const usdt = await run('USDT transfer, no expectations', { tx_hash: TRON_FIXTURE_TX.usdtTransfer, network: 'tron' });
  for (const c of demoCases(usdt.transfers?.[0] ?? {}, failedUsdtTx)) await run(c.label, c.body);
  console.log(`\n${table(['check', 'tx', 'transaction_state', 'overall_state', 'reasons'], rows)}\n`);
  console.log(
    'Risk answers and the OFAC list above are DEMO data from local fake servers, not real screening; chain facts are recorded mainnet responses.',
  );
  console.log(
    'HTTP 200 never means "safe": read overall_state together with transaction_state, coverage, the match flags, freshness and reasons.\n',
  );
}

/** Resolves once SIGINT or SIGTERM has stopped the host gracefully and closed the fakes. */
function stopOnSignal(host: { stop(signal: NodeJS.Signals): Promise<unknown> }, fakes: DemoFakes): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop).off('SIGTERM', stop);
      void host
        .stop(signal)
        .then(() => Promise.all([fakes.node.close(), fakes.vendors.close(), fakes.ofac.close()]))
        .then(() => resolve());
    };
    process.on('SIGINT', stop).on('SIGTERM', stop);
  });
}

function printTryCommands(hostUrl: string): void {
  console.log(bold('The host keeps running. Try:'));
  console.log(`  curl -s ${hostUrl}/v1/transaction/check -H 'X-API-Key: ${DEMO_KEY}' -H 'Content-Type: application/json' \\
    -d '{"tx_hash":"${TRON_FIXTURE_TX.usdtTransfer}","network":"tron","expected_token_contract":"${USDT_CONTRACT}"}'`);
  console.log(`  curl -s '${hostUrl}/v1/usage?days=7' -H 'X-API-Key: ${DEMO_KEY}'`);
  console.log(`  curl -s ${hostUrl}/v1/status`);
  console.log('Press Ctrl-C to stop.');
}

function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

main().catch((error: unknown) => {
  console.error(`demo failed: ${(error as Error).message}`);
  process.exitCode = 1;
});
