import * as t from 'io-ts';

/**
 * io-ts codecs of the two answers that say which network a node serves (see `network.ts`). Block 0
 * has its own codec: TronGrid's genesis block has no `number` or `timestamp` in its raw data, so the
 * head block's codec does not read it.
 */
const BlockId = t.refinement(t.string, (s) => /^[0-9a-fA-F]{64}$/.test(s), 'block id (64 hex)');

/** `getblockbynum {"num": 0}`: only the block's id is read. */
export const NodeGenesisBlock = t.type({ blockID: BlockId });
export type NodeGenesisBlock = t.TypeOf<typeof NodeGenesisBlock>;

/** `getnodeinfo`: java-tron's `node.p2p.version` (a string in its JSON; a number is accepted too). */
export const NodeInfo = t.partial({
  configNodeInfo: t.partial({ p2pVersion: t.union([t.string, t.number]) }),
});
export type NodeInfo = t.TypeOf<typeof NodeInfo>;
