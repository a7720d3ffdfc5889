import * as t from 'io-ts';
import { integer } from '../contract/schema.js';
import { MAX_DECIMALS } from '../tron/amount.js';

/**
 * io-ts codecs of the java-tron HTTP answers the provider reads (visible=false: addresses `41…`
 * hex, bytes hex, proto3 JSON with default values omitted). Only the fields we use are declared;
 * extra fields pass. "Not found" (`{}`) is decoded separately, before these codecs.
 */
const Height = integer('height', { minimum: 0 });
/** Epoch milliseconds a response can show as an RFC 3339 date-time (the year 9999 at most). */
const BlockTime = integer('block time', { minimum: 0, maximum: 253_402_300_799_999 });

const ContractJson = t.intersection([
  t.type({
    type: t.string,
    parameter: t.intersection([t.type({ value: t.UnknownRecord }), t.partial({ type_url: t.string })]),
  }),
  t.partial({ Permission_id: t.number }),
]);

export const NodeTransaction = t.intersection([
  t.type({
    txID: t.string,
    raw_data: t.intersection([
      t.type({ contract: t.array(ContractJson) }),
      t.partial({
        ref_block_bytes: t.string,
        ref_block_hash: t.string,
        expiration: t.number,
        timestamp: t.number,
        fee_limit: t.number,
        data: t.string,
      }),
    ]),
    raw_data_hex: t.string,
  }),
  t.partial({
    ret: t.array(t.partial({ contractRet: t.string, ret: t.string })),
    signature: t.array(t.string),
  }),
]);
export type NodeTransaction = t.TypeOf<typeof NodeTransaction>;

const Log = t.intersection([t.type({ address: t.string }), t.partial({ topics: t.array(t.string), data: t.string })]);
export type NodeLog = t.TypeOf<typeof Log>;

const InternalTransaction = t.partial({
  hash: t.string,
  caller_address: t.string,
  transferTo_address: t.string,
  callValueInfo: t.array(t.partial({ callValue: t.number, tokenId: t.string })),
  note: t.string,
  rejected: t.boolean,
});
export type NodeInternalTransaction = t.TypeOf<typeof InternalTransaction>;

export const NodeTransactionInfo = t.intersection([
  t.type({ id: t.string }),
  t.partial({
    fee: t.number,
    blockNumber: Height,
    blockTimeStamp: BlockTime,
    contractResult: t.array(t.string),
    contract_address: t.string,
    receipt: t.partial({ result: t.string, net_fee: t.number, energy_fee: t.number }),
    log: t.array(Log),
    result: t.string,
    resMessage: t.string,
    internal_transactions: t.array(InternalTransaction),
  }),
]);
export type NodeTransactionInfo = t.TypeOf<typeof NodeTransactionInfo>;

/**
 * A head block. Its number and time are required, so a head without one is a bad response: the number
 * places the tx (confirmations, the solidity race guard), the time dates the chain data (freshness);
 * proto3 omits only a 0, and block 0 is genesis, never a head.
 */
export const NodeBlock = t.type({
  block_header: t.type({
    raw_data: t.type({ number: Height, timestamp: BlockTime }),
  }),
});
export type NodeBlock = t.TypeOf<typeof NodeBlock>;

export const NodeConstantCall = t.partial({
  result: t.partial({ result: t.boolean, code: t.string, message: t.string }),
  constant_result: t.array(t.string),
  transaction: t.partial({ ret: t.array(t.partial({ ret: t.string })) }),
});
export type NodeConstantCall = t.TypeOf<typeof NodeConstantCall>;

export const NodeAssetIssue = t.partial({
  id: t.string,
  name: t.string,
  abbr: t.string,
  // java-tron allows 0..6; a larger claim is not an asset's precision, and the asset reads as unknown.
  precision: integer('precision', { minimum: 0, maximum: MAX_DECIMALS }),
});
export type NodeAssetIssue = t.TypeOf<typeof NodeAssetIssue>;
