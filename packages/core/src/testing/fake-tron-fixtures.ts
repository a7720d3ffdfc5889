import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { CONTRACT_TYPES, type ContractTypeName } from '../chain/categories.js';
import { base58ToHexAddress } from '../tron/address.js';
import { encodeAddressWord, encodeUint256, TRANSFER_EVENT_TOPIC } from '../tron/abi.js';
import { encodeRawData, type RawParameterValue } from '../tron/protobuf.js';
import { fixturePath } from './fixtures.js';

/**
 * The recorded mainnet transactions of `fixtures/tron/` (copied from mainnet, see fixtures/README.md), as a visible=false java-tron node
 * answers them, plus a builder for custom transactions whose raw bytes, txID and JSON agree.
 */
export type JsonObject = { [key: string]: unknown };

/** What one node knows about a transaction: `null` means the node answers `{}`. */
export interface FakeTronTransaction {
  transaction: JsonObject | null;
  info: JsonObject | null;
}

/** Hashes of the fixture transactions the fake node serves. */
export const TRON_FIXTURE_TX = {
  trxTransfer: '5144c4f5a52a08e57dfdf550b4f925c396e68c59a80339cea69497bee116437f',
  trxTransferToNewAccount: '3f8b651bdf4a301a08693a2fa4b0d5fd808927ad658aa279ba030215fecdd6b3',
  trc10Transfer: '034897cb63856eeb5c224c5fa9ff5d4c94af36d9e1e9087d5bcc9fd665fb5a6d',
  usdtTransfer: '0130dfde9281a48378109039ef512229d5359fbee2a8adbb17ad73aebc67ea99',
  voteWitness: 'dbca0cc1a4856d8b9e0d5b35df95aed0ed1c4f28a8660bc7ede8c22eb4ee1ecb',
  freezeBalanceV2: '37a8a1cf504a1b5d777f23ab5e553b92bc9fca6c56ccf7cd8c9f82a13d9d1af3',
  unfreezeBalanceV1: '56eddcf4efa284fc4ab7de6ee23da2246aa86d48e91c11164ccbdd080f2531e2',
  withdrawBalance: '5364d83113409e07330c8af72a6334c2c49b0909cbf68191eba734d23131427f',
  /** Only the tx info was recorded: the node serves the info and `{}` for the transaction body. */
  usdtTransferDocExample: 'b69c51db8f9d974e6a38c76852c8ce1adcb682dbacb25ad8ad4f6876121fe9dc',
  trxTransferDocExample: '2389719608ed69f7ec3e72c1abb92acaa43b7175f3062f4ebc6e2e02cc82d0d2',
  /** Transactions of the abridged mainnet block 71723395 (their infos are synthetic, see below). */
  blockTrxTransfer: '369e1efdeedfc774f967aff173ab22a1ce58471f08e624a190aac4d148f1d943',
  blockUsdtTransfer: 'ecd50059428170eee5e4c9862ad56f1d582d26540cecc071899eef7d07e19d38',
} as const;

/** The recorded hash of the failed OUT_OF_ENERGY USDT call (only its tx info exists). */
export const RECORDED_FAILED_USDT_TX = 'e63a324a43aebfe41273db4f7fdfe325b2257b4f5711595a5fc0f8a75cf1b481';

export const USDT_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
export const TRC10_FIXTURE_ASSET_ID = '1005065';

const readJson = (...parts: string[]): JsonObject =>
  JSON.parse(readFileSync(fixturePath('tron', ...parts), 'utf8')) as JsonObject;

/**
 * A TronGrid v1 account-transaction record reduced to java-tron's `gettransactionbyid` body:
 * only `ret` (contractRet only), `signature`, `txID`, `raw_data`, `raw_data_hex`. Parameter values
 * lose v1's renderings java-tron would not print (`resource_type`/`resource_value`, a numeric
 * default `resource`), and a TRC10 `asset_name` is printed as bytes are with visible=false: hex.
 */
export function javaTronTransactionFromV1(record: JsonObject): JsonObject {
  const raw = structuredClone(record.raw_data) as { contract: { type: string; parameter: { value: JsonObject } }[] };
  for (const contract of raw.contract) {
    const value = contract.parameter.value;
    delete value.resource_type;
    delete value.resource_value;
    if (value.resource === 0 || value.resource === 'BANDWIDTH') delete value.resource;
    if (contract.type === 'TransferAssetContract' && typeof value.asset_name === 'string') {
      value.asset_name = Buffer.from(value.asset_name, 'utf8').toString('hex');
    }
  }
  const ret = (record.ret as { contractRet?: string }[] | undefined)?.map((r) => ({ contractRet: r.contractRet }));
  return {
    ret,
    signature: record.signature,
    txID: record.txID,
    raw_data: raw,
    raw_data_hex: record.raw_data_hex,
  };
}

/** Input of `buildTronTransaction`: java-tron JSON forms (addresses `41…` hex, byte fields hex). */
export interface BuildTransactionInput {
  contractType: ContractTypeName;
  /** Parameter value as java-tron prints it; integers as numbers or bigints, nested messages as objects. */
  parameter: Record<string, RawParameterValue>;
  blockNumber: number;
  /** Default: a mainnet-like time derived from the block number. */
  blockTimeStamp?: number;
  /** `ret[0].contractRet`; default SUCCESS. */
  contractRet?: string;
  feeLimit?: number;
  /** Fields merged into the tx info (`log`, `receipt`, `result`, `internal_transactions`, …). */
  info?: JsonObject;
  /** Distinguishes otherwise identical transactions (goes into `timestamp`). */
  nonce?: number;
}

const ANCHOR_BLOCK = 71723395;
const ANCHOR_TIME = 1745825274000;

/** Mainnet-like block time: 3 s per block around the abridged fixture block. */
export function blockTimeOf(blockNumber: number): number {
  return ANCHOR_TIME + (blockNumber - ANCHOR_BLOCK) * 3000;
}

const sha256Hex = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

/**
 * A transaction whose `raw_data_hex` is encoded from the same parameter the JSON shows, with
 * txID = sha256(raw_data_hex), and a matching tx info. For tests that need transactions the
 * recordings lack (many logs, internal transactions, other contract types).
 */
export function buildTronTransaction(input: BuildTransactionInput): FakeTronTransaction & { txID: string } {
  const blockTimeStamp = input.blockTimeStamp ?? blockTimeOf(input.blockNumber);
  const timestamp = blockTimeStamp - 3000 + (input.nonce ?? 0);
  const refBlock = input.blockNumber - 20;
  const refBlockBytes = (refBlock & 0xffff).toString(16).padStart(4, '0');
  const refBlockHash = sha256Hex(refBlock.toString(16).padStart(16, '0')).slice(16, 32);
  const expiration = timestamp + 60_000;
  const rawDataHex = encodeRawData({
    ref_block_bytes: refBlockBytes,
    ref_block_hash: refBlockHash,
    expiration,
    timestamp,
    ...(input.feeLimit !== undefined ? { fee_limit: input.feeLimit } : {}),
    contract: [
      {
        typeNumber: CONTRACT_TYPES[input.contractType].number,
        typeName: input.contractType,
        parameter: input.parameter,
      },
    ],
  });
  const txID = sha256Hex(rawDataHex);
  const json = (v: RawParameterValue): unknown =>
    typeof v === 'bigint'
      ? Number(v)
      : Array.isArray(v)
        ? v.map(json)
        : typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, json(x)]))
          : v;
  const jsonValue = json(input.parameter);
  const transaction: JsonObject = {
    ret: [{ contractRet: input.contractRet ?? 'SUCCESS' }],
    signature: [sha256Hex(txID) + sha256Hex(sha256Hex(txID)) + '00'],
    txID,
    raw_data: {
      contract: [
        {
          parameter: { value: jsonValue, type_url: `type.googleapis.com/protocol.${input.contractType}` },
          type: input.contractType,
        },
      ],
      ref_block_bytes: refBlockBytes,
      ref_block_hash: refBlockHash,
      expiration,
      ...(input.feeLimit !== undefined ? { fee_limit: input.feeLimit } : {}),
      timestamp,
    },
    raw_data_hex: rawDataHex,
  };
  const info: JsonObject = {
    id: txID,
    blockNumber: input.blockNumber,
    blockTimeStamp,
    contractResult: [''],
    receipt: { net_usage: 268 },
    ...input.info,
  };
  return { txID, transaction, info };
}

/** A Transfer(address,address,uint256) log as java-tron prints it (20-byte hex addresses, no 41). */
export function transferLog(tokenBase58: string, fromBase58: string, toBase58: string, amount: bigint): JsonObject {
  const evm = (a: string) => {
    const hex = base58ToHexAddress(a);
    if (!hex) throw new Error(`not a TRON address: ${a}`);
    return hex.slice(2);
  };
  return {
    address: evm(tokenBase58),
    topics: [TRANSFER_EVENT_TOPIC, encodeAddressWord(evm(fromBase58)), encodeAddressWord(evm(toBase58))],
    data: encodeUint256(amount),
  };
}

const hex41 = (base58: string): string => {
  const hex = base58ToHexAddress(base58);
  if (!hex) throw new Error(`not a TRON address: ${base58}`);
  return hex;
};

/**
 * An internal transaction as java-tron prints it (visible=false): `41…` addresses, the note
 * (`call`, `create`, `suicide`, `delegateResourceOfEnergy`, `voteWitness`, … as Program.java names
 * them) as the hex of its text, one `callValueInfo` entry whose 0 value proto3 leaves out.
 */
export function internalTransaction(input: {
  note: string;
  caller: string;
  /** None for a vote. */
  callee?: string;
  /** In sun, or TRC10 units with `tokenId`. */
  value?: number;
  tokenId?: string;
  rejected?: boolean;
}): JsonObject {
  return {
    hash: sha256Hex(Buffer.from(JSON.stringify(input)).toString('hex')),
    caller_address: hex41(input.caller),
    ...(input.callee === undefined ? {} : { transferTo_address: hex41(input.callee) }),
    callValueInfo: [
      { ...(input.value ? { callValue: input.value } : {}), ...(input.tokenId ? { tokenId: input.tokenId } : {}) },
    ],
    note: Buffer.from(input.note).toString('hex'),
    ...(input.rejected ? { rejected: true } : {}),
  };
}

/**
 * SYNTHETIC: the failed OUT_OF_ENERGY USDT call. Only its tx info was recorded
 * (`trc20_usdt_failed_out_of_energy`), so the body is built here: a USDT transfer(…) call with
 * `ret[0].contractRet` OUT_OF_ENERGY and fee_limit = the energy the info says it could buy
 * (78572 × 210 sun). Owner and recipient are invented (the Ledger fixture accounts). Its txID is the
 * hash of these synthetic bytes, not the recorded e63a324a…; the info is the recorded one with
 * its `id` replaced accordingly.
 */
function syntheticFailedUsdt(): FakeTronTransaction & { txID: string } {
  const recorded = readJson('trc20_usdt_failed_out_of_energy', 'gettransactioninfobyid.json');
  const { id: _id, ...rest } = recorded;
  const data =
    'a9059cbb' + encodeAddressWord(hex41('TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx').slice(2)) + encodeUint256(25_000_000n);
  return buildTronTransaction({
    contractType: 'TriggerSmartContract',
    parameter: {
      owner_address: hex41('TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre'),
      contract_address: hex41(USDT_CONTRACT),
      data,
    },
    blockNumber: recorded.blockNumber as number,
    blockTimeStamp: recorded.blockTimeStamp as number,
    contractRet: 'OUT_OF_ENERGY',
    feeLimit: 16_500_120,
    info: rest,
  });
}

/**
 * SYNTHETIC infos for the two transactions of the abridged block 71723395 (the block was recorded,
 * their infos were not): bandwidth-only receipts, and for the USDT call the Transfer log its call
 * data implies (10 USDT), as a successful USDT transfer emits.
 */
function blockTransactions(): FakeTronTransaction[] {
  const block = readJson('block_abridged', 'getblockbynum_abridged.json');
  const header = (block.block_header as { raw_data: { number: number; timestamp: number } }).raw_data;
  const txs = block.transactions as JsonObject[];
  return txs.map((tx): FakeTronTransaction => {
    const contract = (tx.raw_data as { contract: { type: string; parameter: { value: JsonObject } }[] }).contract[0]!;
    const base = {
      id: tx.txID,
      blockNumber: header.number,
      blockTimeStamp: header.timestamp,
      contractResult: [''],
      receipt: { net_usage: 265 },
    };
    if (contract.type !== 'TriggerSmartContract') return { transaction: tx, info: base };
    const value = contract.parameter.value as { data: string; owner_address: string; contract_address: string };
    const to = value.data.slice(8 + 24, 8 + 64);
    const amount = BigInt(`0x${value.data.slice(8 + 64, 8 + 128)}`);
    return {
      transaction: tx,
      info: {
        ...base,
        fee: 13_844_880,
        contractResult: ['0'.repeat(64)],
        contract_address: value.contract_address,
        receipt: { energy_fee: 13_844_880, energy_usage_total: 65_928, net_usage: 345, result: 'SUCCESS' },
        log: [
          {
            address: value.contract_address.slice(2),
            topics: [TRANSFER_EVENT_TOPIC, encodeAddressWord(value.owner_address.slice(2)), encodeAddressWord(to)],
            data: encodeUint256(amount),
          },
        ],
      },
    };
  });
}

export const ABRIDGED_BLOCK_NUMBER = 71723395;

export function abridgedBlock(): JsonObject {
  return readJson('block_abridged', 'getblockbynum_abridged.json');
}

let cached: { transactions: Map<string, FakeTronTransaction>; failedUsdtTx: string } | null = null;

/** Every fixture transaction by hash, as java-tron would serve it. */
export function loadTronFixtures(): { transactions: Map<string, FakeTronTransaction>; failedUsdtTx: string } {
  if (cached) return cached;
  const folders = [
    'trx_transfer',
    'trx_transfer_to_new_account',
    'trc10_transfer',
    'trc20_usdt_transfer',
    'trc20_usdt_transfer_doc_example',
    'trx_transfer_doc_example',
    'vote_witness',
    'freeze_balance_v2',
    'unfreeze_balance_v1',
    'withdraw_balance',
  ];
  const transactions = new Map<string, FakeTronTransaction>();
  for (const folder of folders) {
    const info = readJson(folder, 'gettransactioninfobyid.json');
    const v1 = fixturePath('tron', folder, 'trongrid_v1_account_transaction_record.json');
    const transaction = existsSync(v1)
      ? javaTronTransactionFromV1(readJson(folder, 'trongrid_v1_account_transaction_record.json'))
      : null;
    transactions.set(info.id as string, { transaction, info });
  }
  for (const entry of blockTransactions()) transactions.set(entry.info!.id as string, entry);
  const failed = syntheticFailedUsdt();
  transactions.set(failed.txID, { transaction: failed.transaction, info: failed.info });
  cached = { transactions, failedUsdtTx: failed.txID };
  return cached;
}
