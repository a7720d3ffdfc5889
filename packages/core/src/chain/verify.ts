import { createHash } from 'node:crypto';
import { decodeCallAccounts, hexToText } from '../tron/abi.js';
import {
  decodeRawData,
  TYPE_URL_PREFIX,
  valuesAtPath,
  type DecodedContract,
  type DecodedRawData,
} from '../tron/protobuf.js';
import { contractTypeNumber } from './categories.js';
import type { Disagreement } from './facts.js';
import type { NodeTransaction } from './node-codecs.js';

/**
 * The transaction's contract as the provider uses it. Read from the signed raw bytes when they
 * decode (they are what the txID hashes), from the JSON otherwise. Addresses are `41…` hex.
 */
export interface ContractView {
  type: string;
  owner: string | null;
  /** TransferContract/TransferAssetContract recipient. */
  to: string | null;
  /** TRX (sun) or TRC10 units. */
  amount: bigint | null;
  /** TRC10 id of a TransferAssetContract. */
  assetId: string | null;
  /** TriggerSmartContract target and call data. */
  contractAddress: string | null;
  data: string | null;
  callValue: bigint;
  callTokenValue: bigint;
  tokenId: string | null;
  /**
   * Accounts the signed parameter names besides the owner (`41…` hex, in field order, may repeat):
   * a recipient, the called contract and the accounts its call data names (`from`/`to`, spender,
   * operator), a resource or vote receiver, a permission key. Only from the decoded raw bytes; empty
   * for a view read from the JSON.
   */
  named: string[];
}

export interface Verification {
  /** txID = requested hash = sha256(raw_data_hex), and the raw bytes say what the JSON says. */
  verified: boolean;
  disagreements: Disagreement[];
  view: ContractView | null;
}

const lower = (v: unknown): string | null => (typeof v === 'string' ? v.toLowerCase() : null);
const ADDRESS_HEX = /^41[0-9a-f]{40}$/;

/** java-tron prints a TRC10 `asset_name` (bytes) as hex with visible=false; TronGrid v1 as the id itself. */
export function assetIdOf(assetName: string): string | null {
  // TRC10 ids are decimal numbers ≥ 1000001: their hex form starts with "31" and decodes to digits.
  const text = /^(?:[0-9a-f]{2})+$/i.test(assetName) ? hexToText(assetName) : null;
  if (text !== null && /^[1-9][0-9]*$/.test(text)) return text;
  return /^[1-9][0-9]*$/.test(assetName) ? assetName : null;
}

/** An integer JSON field (number or numeric string); java-tron omits zero values. */
function jsonInt(v: unknown): bigint | null {
  if (v === undefined) return 0n;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?[0-9]+$/.test(v)) return BigInt(v);
  return null;
}

/** JSON numbers beyond 2^53 were rounded by JSON.parse: compare them as the double they became. */
function sameInt(json: unknown, raw: bigint): boolean {
  if (typeof json === 'number' && !Number.isSafeInteger(json)) return Number(raw) === json;
  return jsonInt(json) === raw;
}

function viewFromJson(type: string, value: Record<string, unknown>): ContractView {
  const assetName = typeof value.asset_name === 'string' ? value.asset_name : null;
  return {
    type,
    owner: lower(value.owner_address),
    to: lower(value.to_address),
    amount: type === 'TransferContract' || type === 'TransferAssetContract' ? jsonInt(value.amount) : null,
    assetId: assetName !== null ? assetIdOf(assetName) : null,
    contractAddress: lower(value.contract_address),
    data: lower(value.data),
    callValue: jsonInt(value.call_value) ?? 0n,
    callTokenValue: jsonInt(value.call_token_value) ?? 0n,
    tokenId: value.token_id !== undefined ? String(value.token_id) : null,
    named: [],
  };
}

/** The accounts a contract call names: the contract, and the address arguments of a token or NFT call (see `decodeCallAccounts`). */
function callTargets(contractAddress: string, data: string): string[] {
  return [contractAddress, ...decodeCallAccounts(data).map((a) => `41${a}`)];
}

function viewFromRaw(type: string, contract: DecodedContract): ContractView {
  const p = contract.parameter;
  const base: ContractView = {
    type,
    owner: p.owner_address || null,
    to: null,
    amount: null,
    assetId: null,
    contractAddress: null,
    data: null,
    callValue: 0n,
    callTokenValue: 0n,
    tokenId: null,
    named: [],
  };
  switch (p.type) {
    case 'TransferContract':
      return { ...base, to: p.to_address, amount: p.amount, named: [p.to_address] };
    case 'TransferAssetContract':
      return { ...base, to: p.to_address, amount: p.amount, assetId: assetIdOf(p.asset_name), named: [p.to_address] };
    case 'TriggerSmartContract':
      return {
        ...base,
        contractAddress: p.contract_address,
        data: p.data,
        callValue: p.call_value,
        callTokenValue: p.call_token_value,
        tokenId: p.token_id !== 0n ? p.token_id.toString() : null,
        named: callTargets(p.contract_address, p.data),
      };
    case 'other':
      return { ...base, named: Object.values(p.addresses).flat() };
  }
}

/** Differences between the JSON parameter and the decoded raw one, as field names. */
function compareParameter(json: Record<string, unknown>, raw: DecodedContract): string[] {
  const p = raw.parameter;
  const diffs: string[] = [];
  const bytesField = (name: string, rawHex: string) => {
    const value = json[name];
    if ((value === undefined ? '' : lower(value)) !== rawHex) diffs.push(name);
  };
  // Field 1 is owner_address in every payment type; other types are checked when the JSON names an owner.
  if (p.type !== 'other' || json.owner_address !== undefined) bytesField('owner_address', p.owner_address);
  switch (p.type) {
    case 'TransferContract':
      bytesField('to_address', p.to_address);
      if (!sameInt(json.amount, p.amount)) diffs.push('amount');
      break;
    case 'TransferAssetContract':
      bytesField('to_address', p.to_address);
      if (!sameInt(json.amount, p.amount)) diffs.push('amount');
      {
        // The JSON prints the bytes as hex (java-tron) or as the id text (TronGrid v1); proto3 omits empty ones.
        const jsonAsset = typeof json.asset_name === 'string' ? json.asset_name.toLowerCase() : '';
        const rawId = assetIdOf(p.asset_name);
        if (jsonAsset !== p.asset_name && (rawId === null || jsonAsset !== rawId)) diffs.push('asset_name');
      }
      break;
    case 'TriggerSmartContract':
      bytesField('contract_address', p.contract_address);
      bytesField('data', p.data);
      if (!sameInt(json.call_value, p.call_value)) diffs.push('call_value');
      if (!sameInt(json.call_token_value, p.call_token_value)) diffs.push('call_token_value');
      if (!sameInt(json.token_id, p.token_id)) diffs.push('token_id');
      break;
    case 'other':
      for (const [path, rawValues] of Object.entries(p.addresses)) {
        const jsonValues = valuesAtPath(json, path).map(lower);
        if (jsonValues.length !== rawValues.length || jsonValues.some((v, i) => v !== rawValues[i])) diffs.push(path);
      }
      break;
  }
  return diffs;
}

/** The JSON fields that say something else than the decoded raw bytes (each named once). */
function rawMismatches(tx: NodeTransaction, raw: DecodedRawData): string[] {
  const mismatches: string[] = [];
  const contractJson = tx.raw_data.contract[0];
  const rawContract = raw.contract[0];
  if (raw.contract.length !== tx.raw_data.contract.length || !rawContract || !contractJson) {
    mismatches.push('contract count');
  } else {
    // A type newer than our table is bound to the bytes by its type_url alone.
    const expectedNumber = contractTypeNumber(contractJson.type);
    if (expectedNumber !== null && rawContract.typeNumber !== expectedNumber) mismatches.push('contract type');
    if (rawContract.typeUrl !== TYPE_URL_PREFIX + contractJson.type) mismatches.push('type_url');
    if (contractJson.parameter.type_url !== undefined && contractJson.parameter.type_url !== rawContract.typeUrl) {
      mismatches.push('type_url');
    }
    if ((contractJson.Permission_id ?? 0) !== rawContract.permissionId) mismatches.push('Permission_id');
    mismatches.push(...compareParameter(contractJson.parameter.value, rawContract));
  }
  const header = tx.raw_data;
  if ((header.ref_block_bytes ?? '').toLowerCase() !== raw.ref_block_bytes) mismatches.push('ref_block_bytes');
  if ((header.ref_block_hash ?? '').toLowerCase() !== raw.ref_block_hash) mismatches.push('ref_block_hash');
  if (!sameInt(header.expiration, raw.expiration)) mismatches.push('expiration');
  if (!sameInt(header.timestamp, raw.timestamp)) mismatches.push('timestamp');
  if (!sameInt(header.fee_limit, raw.fee_limit)) mismatches.push('fee_limit');
  if ((header.data ?? '').toLowerCase() !== raw.data) mismatches.push('data');
  return [...new Set(mismatches)];
}

/**
 * Checks a node's transaction against the hash asked for and against its own signed bytes:
 * txID = hash = sha256(raw_data_hex), and raw_data_hex decoded says the same type, owner, recipient,
 * contract, amounts, call data and header fields as the JSON.
 */
export function verifyTransaction(txHash: string, tx: NodeTransaction): Verification {
  const disagreements: Disagreement[] = [];
  const contractJson = tx.raw_data.contract[0];
  const type = contractJson?.type ?? 'unknown';
  const jsonView = contractJson ? viewFromJson(type, contractJson.parameter.value) : null;

  const txId = tx.txID.toLowerCase();
  if (txId !== txHash) disagreements.push({ code: 'tx_id_mismatch', detail: `txID ${txId} is not the requested hash` });
  const rawHex = tx.raw_data_hex.toLowerCase();
  const digest = /^(?:[0-9a-f]{2})+$/.test(rawHex)
    ? createHash('sha256').update(Buffer.from(rawHex, 'hex')).digest('hex')
    : null;
  if (digest !== txId) {
    disagreements.push({ code: 'tx_id_mismatch', detail: 'sha256(raw_data_hex) is not the txID' });
  }

  const decoded = decodeRawData(rawHex);
  if (decoded.isErr()) {
    disagreements.push({ code: 'raw_data_mismatch', detail: `raw_data_hex does not decode: ${decoded.error.detail}` });
    return { verified: false, disagreements, view: jsonView };
  }
  const raw = decoded.value;
  // java-tron refuses a transaction with more than one contract at consensus: a body with another
  // count was not executed as shown, and only contract[0] would be read.
  const counts = [...new Set([tx.raw_data.contract.length, raw.contract.length])];
  if (counts.some((n) => n !== 1)) {
    disagreements.push({
      code: 'other',
      detail: `${counts.join(' / ')} contracts in one transaction (java-tron accepts exactly one)`,
    });
  }
  const rawContract = raw.contract[0];
  const mismatches = rawMismatches(tx, raw);
  if (mismatches.length > 0) {
    disagreements.push({
      code: 'raw_data_mismatch',
      detail: `raw_data_hex and the JSON differ in ${mismatches.join(', ')}`,
    });
  }
  const view = rawContract ? viewFromRaw(type, rawContract) : jsonView;
  if (view && view.owner !== null && !ADDRESS_HEX.test(view.owner)) view.owner = null;
  return { verified: disagreements.length === 0, disagreements, view };
}
