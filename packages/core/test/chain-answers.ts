// Plain node answers for the pure chain-facts steps: what the fake node would serve, without HTTP.
import assert from 'node:assert/strict';
import type * as t from 'io-ts';
import { err, ok } from 'neverthrow';
import { assembleFacts, planTokens } from '../src/chain/assemble.js';
import type { NodeCallError } from '../src/chain/client.js';
import type { Answer, MetadataTable, NodeAnswers, NodeRound } from '../src/chain/collect.js';
import { deriveFacts, type DerivedFacts } from '../src/chain/derive.js';
import type { ChainFacts } from '../src/chain/facts.js';
import { NodeTransaction, NodeTransactionInfo, type NodeBlock } from '../src/chain/node-codecs.js';
import { tokenKey, type TokenMetadata } from '../src/chain/token-metadata.js';
import { base58ToHexAddress } from '../src/tron/address.js';
import {
  loadTronFixtures,
  TRC10_FIXTURE_ASSET_ID,
  USDT_CONTRACT,
  type FakeTronTransaction,
  type JsonObject,
} from '../src/testing/fake-tron-fixtures.js';

export const FIXTURES = loadTronFixtures();

/** The fake node's default heights: every fixture solidified (head = highest fixture block + 100, solidified 20 below). */
const highest = Math.max(...[...FIXTURES.transactions.values()].map((t) => Number(t.info?.blockNumber ?? 0)));
export const HEIGHTS = { head: highest + 100, solidified: highest + 80 } as const;

/** A call that got no usable answer. */
export interface Fails {
  fails: NodeCallError;
}
export const fails = (error: NodeCallError): Fails => ({ fails: error });
export const timeout = (node: 'full' | 'solidity', endpoint: string): Fails =>
  fails({ kind: 'timeout', node, endpoint });

/** What one node serves: the JSON (null = `{}`) or a failure; left out = what the fake node serves by default. */
export interface NodeScript {
  transaction?: JsonObject | null | Fails;
  info?: JsonObject | null | Fails;
  head?: number | Fails;
}

export interface AnswerScript {
  heights?: { head?: number; solidified?: number };
  full?: NodeScript;
  solidity?: NodeScript;
  observedAt?: Date;
}

const isFailure = (value: unknown): value is Fails => typeof value === 'object' && value !== null && 'fails' in value;

/** The JSON through the node's codec, as the client decodes it (test data that does not decode is a test bug). */
function decoded<A>(codec: t.Type<A, unknown, unknown>, json: JsonObject | null | Fails): Answer<A | null> {
  if (isFailure(json)) return err(json.fails);
  if (json === null) return ok(null);
  assert.ok(codec.is(json), `test answer does not decode as ${codec.name}`);
  return ok(json);
}

/** How one node answers: what it has, and the block time of a head (3 s a block, the full node's head made at the observation). */
interface RoundOf {
  visibleAt: number;
  full: boolean;
  script: NodeScript | undefined;
  timeOf: (head: number) => number;
}

const block = (head: number | Fails, timeOf: RoundOf['timeOf']): Answer<NodeBlock> =>
  isFailure(head) ? err(head.fails) : ok({ block_header: { raw_data: { number: head, timestamp: timeOf(head) } } });

function round(entry: FakeTronTransaction, { visibleAt, full, script = {}, timeOf }: RoundOf): NodeRound {
  const inBlock = entry.info ? Number(entry.info.blockNumber) : null;
  // The full node has a broadcast body before its block; the solidity node only once solidified.
  const hasBlock = inBlock !== null && inBlock <= visibleAt;
  const transaction =
    script.transaction !== undefined ? script.transaction : full || hasBlock ? entry.transaction : null;
  const info = script.info !== undefined ? script.info : hasBlock ? entry.info : null;
  return {
    tx: decoded(NodeTransaction, transaction),
    info: decoded(NodeTransactionInfo, info),
    block: block(script.head ?? visibleAt, timeOf),
  };
}

/** Both nodes' answers about `entry`, as the fake node would serve them under `script`. */
export function answersFor(entry: FakeTronTransaction, script: AnswerScript = {}): NodeAnswers {
  const heights = { ...HEIGHTS, ...script.heights };
  const observedAt = script.observedAt ?? new Date('2026-11-21T12:00:00Z');
  const timeOf = (head: number) => observedAt.getTime() - (heights.head - head) * 3000;
  return {
    full: round(entry, { visibleAt: heights.head, full: true, script: script.full, timeOf }),
    solidity: round(entry, { visibleAt: heights.solidified, full: false, script: script.solidity, timeOf }),
    observedAt,
  };
}

/** A recorded fixture by hash (what the fake node serves for it). */
export function fixture(hash: string): FakeTronTransaction {
  const entry = FIXTURES.transactions.get(hash);
  assert.ok(entry, `no fixture ${hash}`);
  return entry;
}

/** The hash a transaction entry is served under. */
export const hashOf = (entry: FakeTronTransaction) =>
  String(entry.transaction?.txID ?? entry.info?.id ?? '').toLowerCase();

/** Derived facts of `entry` (answered as scripted); asks for `hash` (default the entry's own). */
export function derive(entry: FakeTronTransaction, script: AnswerScript = {}, hash = hashOf(entry)): DerivedFacts {
  const derived = deriveFacts(hash, answersFor(entry, script), 100);
  assert.ok(derived.isOk(), `expected facts, got ${JSON.stringify(derived.isErr() && derived.error)}`);
  return derived.value;
}

const metadata = (decimals: number, symbol: string, name: string): TokenMetadata => ({
  decimals,
  symbol,
  name,
  readAt: new Date('2026-11-21T11:00:00Z'),
  complete: true,
});

/** The fake node's tokens: USDT and the synthetic TRC10 fixture asset. */
export const FAKE_NODE_TOKENS: MetadataTable = new Map([
  [tokenKey({ kind: 'trc20', contractHex: base58ToHexAddress(USDT_CONTRACT)! }), metadata(6, 'USDT', 'Tether USD')],
  [tokenKey({ kind: 'trc10', id: TRC10_FIXTURE_ASSET_ID }), metadata(6, 'FIXT', 'FixtureToken')],
]);

/** A token the node does not know answers completely, with nothing in it (as "no such contract" does). */
const UNKNOWN_TOKEN: TokenMetadata = { ...metadata(0, '', ''), decimals: null, symbol: null, name: null };

/** The whole facts of `entry`, its tokens' metadata from `table` (default: the fake node's tokens). */
export function factsOf(entry: FakeTronTransaction, script: AnswerScript = {}, table = FAKE_NODE_TOKENS): ChainFacts {
  const derived = derive(entry, script);
  const plan = planTokens(derived.transfers, 20);
  const read = new Map(plan.looked.map((ref) => [tokenKey(ref), table.get(tokenKey(ref)) ?? UNKNOWN_TOKEN]));
  return assembleFacts(derived, plan, read);
}

export const codes = (f: Pick<DerivedFacts, 'missing'>) => f.missing.map((g) => g.code);
export const details = (f: Pick<DerivedFacts, 'missing'>) => f.missing.map((g) => g.detail);
