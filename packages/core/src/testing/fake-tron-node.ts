import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { REGISTRY_KNOWN_TOKENS } from '../chain/known-tokens.js';
import { base58ToHexAddress } from '../tron/address.js';
import { encodeAbiString, encodeUint256 } from '../tron/abi.js';
import {
  ABRIDGED_BLOCK_NUMBER,
  abridgedBlock,
  blockTimeOf,
  loadTronFixtures,
  TRC10_FIXTURE_ASSET_ID,
  type FakeTronTransaction,
  type JsonObject,
} from './fake-tron-fixtures.js';

/**
 * A fake java-tron node over real HTTP on 127.0.0.1: `/wallet/*` is the full node, `/walletsolidity/*`
 * the solidity node (as TronGrid serves both on one host). Answers are visible=false java-tron JSON
 * built from the recorded fixtures; `{}` is "not found", as java-tron says it.
 *
 * Defaults: every fixture transaction is solidified (head = highest fixture block + 100, solidified =
 * head − 20). The heads follow the clock: `getnowblock` on the full node answers a head block made now
 * (`headAgeMs` ago, 0 by default), the solidity node's 3 s a block before it, as on mainnet, whatever
 * the recorded transactions' times. Tests shape scenarios with `setHeights`, `setTransaction`/`addTransaction`,
 * `setToken`, `setAsset`, and inject faults with `fault`.
 */
export type FakeTronNodeName = 'full' | 'solidity';

export type FakeTronFault =
  /** Delay the answer (adds to the node's base latency), then go on to the next matching rule. */
  | { kind: 'latency'; ms: number }
  /** Answer with this HTTP status (5xx, 429, 404…) and body (default: a short text). */
  | { kind: 'status'; status: number; body?: string }
  /** Destroy the connection without answering. */
  | { kind: 'reset' }
  /** Never answer (until the client gives up or the node closes). */
  | { kind: 'hang' }
  /** 200 with JSON cut in the middle. */
  | { kind: 'malformed_json' }
  /** 200 with an HTML page (a proxy's error page). */
  | { kind: 'html' }
  /** 200 `{"Error": message}`, java-tron's business error. */
  | { kind: 'error'; message?: string }
  /** 200 with exactly this body. */
  | { kind: 'body'; body: string };

export interface FakeTronFaultRule {
  /** Only this node; default both. */
  node?: FakeTronNodeName;
  /** Only this endpoint (`gettransactionbyid`, `getnowblock`…); default all. */
  path?: string;
  /** Only the first n matching calls; default every call. */
  times?: number;
  fault: FakeTronFault;
}

/** One received call. Times are `performance.now()` milliseconds. */
export interface FakeTronCall {
  node: FakeTronNodeName;
  path: string;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  startedAt: number;
  finishedAt: number | null;
}

/** A TRC20 method's answer: a value to ABI-encode, `{ raw }` to answer these exact bytes, or a revert. */
export type FakeTronMethodAnswer<T> = T | { raw: string } | 'revert';

export interface FakeTrc20Token {
  decimals?: FakeTronMethodAnswer<number | bigint>;
  symbol?: FakeTronMethodAnswer<string>;
  name?: FakeTronMethodAnswer<string>;
}

/** Shortcuts for common per-transaction scenarios, built on `setHeights` and `setTransaction`. */
export type FakeTronScenario =
  /** Moves the heights: head = tx block + confirmations − 1 (default 5), solidified = tx block − 1. */
  | { kind: 'pending'; confirmations?: number }
  /** Both nodes answer `{}` for the transaction and its info. */
  | { kind: 'not_found' }
  /** The solidity node's info puts the transaction in the next block. */
  | { kind: 'nodes_disagree' }
  /** One byte of `raw_data_hex` changed on both nodes (sha256 no longer gives the txID). */
  | { kind: 'tampered_raw_data_hex' }
  /** The first log's data changed on the solidity node only. */
  | { kind: 'tampered_log' };

export interface FakeTronHeights {
  head: number;
  solidified: number;
  /** How long before the answer the full node's head block was made (ms); 0: the heads follow the clock. */
  headAgeMs: number;
}

export interface FakeTronNodeOptions {
  /** Delay before every answer (ms); default 0. */
  latencyMs?: number;
  /** Full node head block; default highest fixture block + 100. */
  headBlock?: number;
  /** Solidified block (solidity node head); default headBlock − 20. */
  solidifiedBlock?: number;
}

export interface FakeTronNode {
  /** Base URL of both nodes (`http://127.0.0.1:port`). */
  url: string;
  /** Every call received so far, in arrival order. */
  readonly calls: readonly FakeTronCall[];
  clearCalls(): void;
  /** Hash of the synthetic failed (OUT_OF_ENERGY) USDT transaction. */
  readonly failedUsdtTx: string;
  /**
   * Move the chain: the full node's head and the solidity node's head, and how long ago the full node's
   * head block was made (`headAgeMs`; a node stalled in the past has a large one).
   */
  setHeights(heights: Partial<FakeTronHeights>): void;
  readonly heights: FakeTronHeights;
  /** Serve a custom transaction (both nodes, following the heights, like the fixtures). */
  addTransaction(entry: FakeTronTransaction): void;
  /**
   * Fix what one node answers for a hash regardless of heights (`null` = `{}`), e.g. a lagging
   * solidity node, nodes that disagree, a tampered body or log. Fields left out keep the default.
   */
  setTransaction(hash: string, node: FakeTronNodeName, answer: Partial<FakeTronTransaction>): void;
  /** Apply a common scenario to a known transaction (fixture or added). */
  applyScenario(hash: string, scenario: FakeTronScenario): void;
  /** TRC20 metadata served by triggerconstantcontract, by base58 contract address. */
  setToken(contract: string, token: FakeTrc20Token): void;
  /** getassetissuebyid answer for a TRC10 id (`null` = `{}`). */
  setAsset(id: string, asset: JsonObject | null): void;
  /** Add a fault rule; returns a function that removes it. Rules are checked in order. */
  fault(rule: FakeTronFaultRule): () => void;
  clearFaults(): void;
  close(): Promise<void>;
}

/**
 * SYNTHETIC metadata of TRC10 asset 1005065 (no mainnet getassetissuebyid was recorded): name,
 * abbr and precision are invented; fields are hex as java-tron prints them with visible=false.
 */
const FIXTURE_ASSET: JsonObject = {
  owner_address: '414a590bf4bbbb25e162987084d3529ae2078ac177',
  name: Buffer.from('FixtureToken').toString('hex'),
  abbr: Buffer.from('FIXT').toString('hex'),
  total_supply: 100_000_000_000_000,
  trx_num: 1_000_000,
  precision: 6,
  num: 1_000_000,
  start_time: 1_600_000_000_000,
  end_time: 1_600_086_400_000,
  description: Buffer.from('synthetic fixture asset').toString('hex'),
  url: Buffer.from('https://example.invalid').toString('hex'),
  id: TRC10_FIXTURE_ASSET_ID,
};

const IMPLEMENTED = new Set([
  'gettransactionbyid',
  'gettransactioninfobyid',
  'getnowblock',
  'getblockbynum',
  'getassetissuebyid',
  'triggerconstantcontract',
]);

const hexMessage = (text: string) => Buffer.from(text).toString('hex');

function encodeAnswer(answer: FakeTronMethodAnswer<number | bigint | string> | undefined): JsonObject {
  if (answer === undefined || answer === 'revert') {
    return {
      result: { result: true, message: hexMessage('REVERT opcode executed') },
      energy_used: 195,
      constant_result: [''],
      transaction: { ret: [{ ret: 'FAILED' }] },
    };
  }
  const hex =
    typeof answer === 'object'
      ? answer.raw
      : typeof answer === 'string'
        ? encodeAbiString(answer)
        : encodeUint256(BigInt(answer));
  return { result: { result: true }, energy_used: 284, constant_result: [hex], transaction: { ret: [{}] } };
}

function block(number: number): JsonObject {
  if (number === ABRIDGED_BLOCK_NUMBER) return abridgedBlock();
  const numberHex = number.toString(16).padStart(16, '0');
  const hash = (seed: string) => createHash('sha256').update(seed).digest('hex');
  return {
    blockID: numberHex + hash(`block ${number}`).slice(16),
    block_header: {
      raw_data: {
        number,
        txTrieRoot: hash(`root ${number}`),
        witness_address: '418440ffd578f7a5abf3537b5f46a6980d382db581',
        parentHash: (number - 1).toString(16).padStart(16, '0') + hash(`block ${number - 1}`).slice(16),
        version: 31,
        timestamp: blockTimeOf(number),
      },
      witness_signature: hash(`sig ${number}`) + hash(`sig2 ${number}`) + '01',
    },
  };
}

/** Block `number` as a head made `ageMs` before now. */
function headBlock(number: number, ageMs: number): JsonObject {
  const made = block(number);
  const header = made.block_header as JsonObject;
  const rawData = { ...(header.raw_data as JsonObject), timestamp: Date.now() - ageMs };
  return { ...made, block_header: { ...header, raw_data: rawData } };
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeTronNode(options: FakeTronNodeOptions = {}): Promise<FakeTronNode> {
  const fixtures = loadTronFixtures();
  const transactions = new Map(fixtures.transactions);
  const overrides = new Map<string, Partial<FakeTronTransaction>>();
  // Like mainnet, the registry's tokens answer their metadata (USDT among them: 6, USDT, Tether USD).
  const tokens = new Map<string, FakeTrc20Token>(
    REGISTRY_KNOWN_TOKENS.map(({ contract, decimals, symbol, name }) => [contract, { decimals, symbol, name }]),
  );
  const assets = new Map<string, JsonObject | null>([[TRC10_FIXTURE_ASSET_ID, FIXTURE_ASSET]]);
  const rules: { rule: FakeTronFaultRule; used: number }[] = [];
  const calls: FakeTronCall[] = [];
  const sockets = new Set<Socket>();
  const pending = new Set<ServerResponse>();

  const highest = Math.max(...[...transactions.values()].map((t) => Number(t.info?.blockNumber ?? 0)));
  const heights: FakeTronHeights = { head: options.headBlock ?? highest + 100, solidified: 0, headAgeMs: 0 };
  heights.solidified = options.solidifiedBlock ?? heights.head - 20;

  const lookup = (node: FakeTronNodeName, hash: string): FakeTronTransaction => {
    const known = transactions.get(hash);
    const inBlock = known?.info ? Number(known.info.blockNumber) : null;
    const visibleAt = node === 'full' ? heights.head : heights.solidified;
    // The full node has a broadcast body before its block; the solidity node only once solidified.
    const hasBlock = inBlock !== null && inBlock <= visibleAt;
    const base: FakeTronTransaction = {
      transaction: known?.transaction && (node === 'full' || hasBlock) ? known.transaction : null,
      info: hasBlock ? known!.info : null,
    };
    return { ...base, ...overrides.get(`${node}:${hash}`) };
  };

  const answer = (node: FakeTronNodeName, path: string, body: JsonObject): JsonObject => {
    switch (path) {
      case 'gettransactionbyid':
        return lookup(node, String(body.value ?? '').toLowerCase()).transaction ?? {};
      case 'gettransactioninfobyid':
        return lookup(node, String(body.value ?? '').toLowerCase()).info ?? {};
      case 'getnowblock':
        return node === 'full'
          ? headBlock(heights.head, heights.headAgeMs)
          : headBlock(heights.solidified, heights.headAgeMs + (heights.head - heights.solidified) * 3000);
      case 'getblockbynum': {
        const num = Number(body.num ?? 0);
        return num <= (node === 'full' ? heights.head : heights.solidified) ? block(num) : {};
      }
      case 'getassetissuebyid':
        return assets.get(String(body.value ?? '')) ?? {};
      case 'triggerconstantcontract': {
        const contract = String(body.contract_address ?? '').toLowerCase();
        const token = [...tokens.entries()].find(([address]) => base58ToHexAddress(address) === contract)?.[1];
        if (!token) {
          return {
            result: { code: 'CONTRACT_VALIDATE_ERROR', message: hexMessage('Smart contract is not exist.') },
            transaction: {},
          };
        }
        const method = String(body.function_selector ?? '');
        if (method === 'decimals()') return encodeAnswer(token.decimals);
        if (method === 'symbol()') return encodeAnswer(token.symbol);
        if (method === 'name()') return encodeAnswer(token.name);
        return encodeAnswer(undefined);
      }
      default:
        return { Error: 'this API is unavailable due to config' };
    }
  };

  const setTransaction = (hash: string, node: FakeTronNodeName, answer: Partial<FakeTronTransaction>) => {
    const key = `${node}:${hash}`;
    overrides.set(key, { ...overrides.get(key), ...answer });
  };

  const applyScenario = (hash: string, scenario: FakeTronScenario) => {
    const known = transactions.get(hash);
    if (!known) throw new Error(`the fake node does not know ${hash}`);
    const block = Number(known.info?.blockNumber ?? NaN);
    switch (scenario.kind) {
      case 'pending':
        if (Number.isNaN(block)) throw new Error('a pending scenario needs a tx info with a block');
        heights.head = block + (scenario.confirmations ?? 5) - 1;
        heights.solidified = block - 1;
        return;
      case 'not_found':
        for (const node of ['full', 'solidity'] as const) setTransaction(hash, node, { transaction: null, info: null });
        return;
      case 'nodes_disagree':
        setTransaction(hash, 'solidity', { info: { ...known.info, blockNumber: block + 1 } });
        return;
      case 'tampered_raw_data_hex': {
        if (!known.transaction) throw new Error('no transaction body to tamper with');
        const raw = String(known.transaction.raw_data_hex);
        const last = raw.slice(-2) === '00' ? '01' : '00';
        const transaction = { ...known.transaction, raw_data_hex: raw.slice(0, -2) + last };
        for (const node of ['full', 'solidity'] as const) setTransaction(hash, node, { transaction });
        return;
      }
      case 'tampered_log': {
        const logs = structuredClone((known.info?.log ?? []) as JsonObject[]);
        const first = logs[0];
        if (!first) throw new Error('no log to tamper with');
        first.data = encodeUint256(BigInt(`0x${String(first.data || '0')}`) + 1_000_000n);
        setTransaction(hash, 'solidity', { info: { ...known.info, log: logs } });
        return;
      }
    }
  };

  const send = (res: ServerResponse, status: number, body: string, type = 'application/json') => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/(wallet|walletsolidity)\/([A-Za-z0-9]+)$/.exec((req.url ?? '').split('?')[0] ?? '');
    const text = await readBody(req);
    if (!match) return send(res, 404, '<html><body><h2>HTTP ERROR 404 Not Found</h2></body></html>', 'text/html');
    const node: FakeTronNodeName = match[1] === 'wallet' ? 'full' : 'solidity';
    const path = match[2]!;
    let body: JsonObject;
    try {
      body = text ? (JSON.parse(text) as JsonObject) : {};
    } catch {
      body = {};
    }
    const call: FakeTronCall = {
      node,
      path,
      body,
      headers: req.headers,
      startedAt: performance.now(),
      finishedAt: null,
    };
    calls.push(call);
    res.on('close', () => {
      call.finishedAt = performance.now();
      pending.delete(res);
    });
    pending.add(res);
    if (options.latencyMs) await sleep(options.latencyMs);
    for (const entry of rules) {
      const { rule } = entry;
      if ((rule.node && rule.node !== node) || (rule.path && rule.path !== path)) continue;
      if (rule.times !== undefined && entry.used >= rule.times) continue;
      entry.used++;
      const fault = rule.fault;
      switch (fault.kind) {
        case 'latency':
          await sleep(fault.ms);
          continue;
        case 'status':
          return send(res, fault.status, fault.body ?? `fake node status ${fault.status}`, 'text/plain');
        case 'reset':
          req.socket.destroy();
          return;
        case 'hang':
          return;
        case 'malformed_json': {
          const full = JSON.stringify(answer(node, path, body));
          return send(res, 200, full.slice(0, Math.max(1, Math.floor(full.length / 2))));
        }
        case 'html':
          return send(res, 200, '<!DOCTYPE html><html><body>502 Bad Gateway</body></html>', 'text/html');
        case 'error':
          return send(
            res,
            200,
            JSON.stringify({
              Error: fault.message ?? 'class java.lang.IllegalAccessException : lack of computing resources',
            }),
          );
        case 'body':
          return send(res, 200, fault.body);
      }
    }
    const json = answer(node, path, body);
    // java-tron answers a disabled (here: unimplemented) API with 404 and a JSON error.
    send(res, IMPLEMENTED.has(path) ? 200 : 404, JSON.stringify(json));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, 'fake node failure', 'text/plain');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    clearCalls: () => void calls.splice(0),
    failedUsdtTx: fixtures.failedUsdtTx,
    heights,
    setHeights: (moved) => {
      for (const key of ['head', 'solidified', 'headAgeMs'] as const) heights[key] = moved[key] ?? heights[key];
    },
    addTransaction: (entry) => {
      const hash = String(entry.transaction?.txID ?? entry.info?.id ?? '').toLowerCase();
      if (!hash) throw new Error('a fake transaction needs a txID or an info id');
      transactions.set(hash, entry);
    },
    setTransaction: (hash, node, answer) => setTransaction(hash.toLowerCase(), node, answer),
    applyScenario: (hash, scenario) => applyScenario(hash.toLowerCase(), scenario),
    setToken: (contract, token) => void tokens.set(contract, token),
    setAsset: (id, asset) => void assets.set(id, asset),
    fault: (rule) => {
      const entry = { rule, used: 0 };
      rules.push(entry);
      return () => {
        const i = rules.indexOf(entry);
        if (i !== -1) rules.splice(i, 1);
      };
    },
    clearFaults: () => void rules.splice(0),
    close: async () => {
      for (const res of pending) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
