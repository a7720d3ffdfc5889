import type { Result, ResultAsync } from 'neverthrow';
import type { NodeCallError, TronNode, TronNodeClient } from './client.js';
import type { NodeBlock, NodeTransaction, NodeTransactionInfo } from './node-codecs.js';
import {
  tokenKey,
  type MetadataRequest,
  type TokenMetadata,
  type TokenMetadataReader,
  type TokenRef,
} from './token-metadata.js';

/**
 * The I/O of chain facts, and nothing else: what the nodes answered, as plain values. Everything
 * judged from the answers (disagreements, gaps, state, transfers) is in the pure steps after it.
 */

export type Answer<A> = Result<A, NodeCallError>;

/** One node's three answers about a transaction. */
export interface NodeRound {
  tx: Answer<NodeTransaction | null>;
  info: Answer<NodeTransactionInfo | null>;
  block: Answer<NodeBlock>;
}

/** Both nodes' answers, and when they were read. */
export interface NodeAnswers {
  full: NodeRound;
  solidity: NodeRound;
  observedAt: Date;
}

/** The signal of the check and the `performance.now()` time a round must end by. */
export interface CallWindow {
  signal: AbortSignal;
  deadline: number;
}

const settle = async <A>(r: ResultAsync<A, NodeCallError>): Promise<Answer<A>> => await r;

async function askNode(client: TronNodeClient, node: TronNode, hash: string, window: CallWindow): Promise<NodeRound> {
  const { signal, deadline } = window;
  const [tx, info, block] = await Promise.all([
    settle(client.getTransactionById(node, hash, signal, deadline)),
    settle(client.getTransactionInfoById(node, hash, signal, deadline)),
    settle(client.getNowBlock(node, signal, deadline)),
  ]);
  return { tx, info, block };
}

/** Level one: the transaction, its info and the head block, on the full and the solidity node, all in parallel. */
export async function collectAnswers(client: TronNodeClient, hash: string, window: CallWindow): Promise<NodeAnswers> {
  const [full, solidity] = await Promise.all([
    askNode(client, 'full', hash, window),
    askNode(client, 'solidity', hash, window),
  ]);
  return { full, solidity, observedAt: new Date() };
}

/** Metadata by token key, in the order the tokens were given. */
export type MetadataTable = ReadonlyMap<string, TokenMetadata>;

/** The tokens' metadata (cached, seeded or read, in parallel); 'aborted' once the check's signal fired. */
export async function collectMetadata(
  reader: TokenMetadataReader,
  tokens: readonly TokenRef[],
  request: MetadataRequest,
): Promise<MetadataTable | 'aborted'> {
  const answers = await Promise.all(
    tokens.map(async (ref) => [tokenKey(ref), await reader.read(ref, request)] as const),
  );
  if (answers.some(([, m]) => m === 'aborted')) return 'aborted';
  return new Map(answers as (readonly [string, TokenMetadata])[]);
}
