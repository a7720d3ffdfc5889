import protobuf from 'protobufjs';
import { err, ok, type Result } from 'neverthrow';

/**
 * The few java-tron protobuf messages a payment check reads (field numbers from java-tron's
 * `protocol/src/main/protos/core/Tron.proto` and `core/contract/*.proto`). `raw_data_hex` is the
 * signed `Transaction.raw`: decoding it lets us check the node's JSON against the bytes the txID
 * hashes. Unknown fields are skipped by protobufjs, so only what we compare needs declaring.
 */
const PROTO = `
syntax = "proto3";
package protocol;
message Any { string type_url = 1; bytes value = 2; }
message Contract {
  int32 type = 1;
  Any parameter = 2;
  bytes provider = 3;
  bytes ContractName = 4;
  int32 Permission_id = 5;
}
message TransactionRaw {
  bytes ref_block_bytes = 1;
  int64 ref_block_num = 3;
  bytes ref_block_hash = 4;
  int64 expiration = 8;
  bytes data = 10;
  repeated Contract contract = 11;
  int64 timestamp = 14;
  int64 fee_limit = 18;
}
message OwnerOnly { bytes owner_address = 1; }
message TransferContract { bytes owner_address = 1; bytes to_address = 2; int64 amount = 3; }
message TransferAssetContract { bytes asset_name = 1; bytes owner_address = 2; bytes to_address = 3; int64 amount = 4; }
message TriggerSmartContract {
  bytes owner_address = 1;
  bytes contract_address = 2;
  int64 call_value = 3;
  bytes data = 4;
  int64 call_token_value = 5;
  int64 token_id = 6;
}
message AccountCreateContract { bytes owner_address = 1; bytes account_address = 2; }
message AccountUpdateContract { bytes account_name = 1; bytes owner_address = 2; }
message SetAccountIdContract { bytes account_id = 1; bytes owner_address = 2; }
message VoteAssetContract { bytes owner_address = 1; repeated bytes vote_address = 2; }
message VoteWitnessContract {
  message Vote { bytes vote_address = 1; int64 vote_count = 2; }
  bytes owner_address = 1;
  repeated Vote votes = 2;
}
message ParticipateAssetIssueContract { bytes owner_address = 1; bytes to_address = 2; }
message FreezeBalanceContract { bytes owner_address = 1; bytes receiver_address = 15; }
message UnfreezeBalanceContract { bytes owner_address = 1; bytes receiver_address = 15; }
message DelegateResourceContract { bytes owner_address = 1; bytes receiver_address = 4; }
message UnDelegateResourceContract { bytes owner_address = 1; bytes receiver_address = 4; }
message ContractSetting { bytes owner_address = 1; bytes contract_address = 2; }
message Permission {
  enum PermissionType { Owner = 0; Witness = 1; Active = 2; }
  message Key { bytes address = 1; int64 weight = 2; }
  PermissionType type = 1;
  int32 id = 2;
  string permission_name = 3;
  int64 threshold = 4;
  int32 parent_id = 5;
  bytes operations = 6;
  repeated Key keys = 7;
}
message AccountPermissionUpdateContract {
  bytes owner_address = 1;
  Permission owner = 2;
  Permission witness = 3;
  repeated Permission actives = 4;
}
// Field 1 is transparent_from_address, the signing account when there is one; read as the owner as before.
message ShieldedTransferContract { bytes owner_address = 1; bytes transparent_to_address = 6; }
`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;
const TransactionRawType = root.lookupType('protocol.TransactionRaw');
const parameterTypes = {
  TransferContract: root.lookupType('protocol.TransferContract'),
  TransferAssetContract: root.lookupType('protocol.TransferAssetContract'),
  TriggerSmartContract: root.lookupType('protocol.TriggerSmartContract'),
} as const;
const OwnerOnlyType = root.lookupType('protocol.OwnerOnly');

/**
 * The other contract types whose parameter names an account besides its owner: the message that
 * decodes it and the address fields, as JSON paths (`votes.vote_address` walks the repeated votes).
 * Types not listed are decoded for field 1 (`owner_address` in nearly all of them) only.
 */
const ADDRESS_FIELDS: Record<string, { message: string; paths: string[] }> = {
  AccountCreateContract: { message: 'AccountCreateContract', paths: ['account_address'] },
  // owner_address is field 2 here: decoding field 1 would read the account name as the owner.
  AccountUpdateContract: { message: 'AccountUpdateContract', paths: [] },
  SetAccountIdContract: { message: 'SetAccountIdContract', paths: [] },
  VoteAssetContract: { message: 'VoteAssetContract', paths: ['vote_address'] },
  VoteWitnessContract: { message: 'VoteWitnessContract', paths: ['votes.vote_address'] },
  ParticipateAssetIssueContract: { message: 'ParticipateAssetIssueContract', paths: ['to_address'] },
  FreezeBalanceContract: { message: 'FreezeBalanceContract', paths: ['receiver_address'] },
  UnfreezeBalanceContract: { message: 'UnfreezeBalanceContract', paths: ['receiver_address'] },
  DelegateResourceContract: { message: 'DelegateResourceContract', paths: ['receiver_address'] },
  UnDelegateResourceContract: { message: 'UnDelegateResourceContract', paths: ['receiver_address'] },
  UpdateSettingContract: { message: 'ContractSetting', paths: ['contract_address'] },
  UpdateEnergyLimitContract: { message: 'ContractSetting', paths: ['contract_address'] },
  ClearABIContract: { message: 'ContractSetting', paths: ['contract_address'] },
  ShieldedTransferContract: { message: 'ShieldedTransferContract', paths: ['transparent_to_address'] },
  // The keys that may sign for the account from now on.
  AccountPermissionUpdateContract: {
    message: 'AccountPermissionUpdateContract',
    paths: ['owner.keys.address', 'witness.keys.address', 'actives.keys.address'],
  },
};

// type_url comes from the bytes: only own keys, never Object.prototype's.
const addressFieldsOf = (typeName: string) =>
  Object.hasOwn(ADDRESS_FIELDS, typeName) ? ADDRESS_FIELDS[typeName] : undefined;

/** The values at a JSON path of a decoded or printed message, walking nested messages and arrays (every value found, unfiltered). */
export function valuesAtPath(message: unknown, path: string): unknown[] {
  let current: unknown[] = [message];
  for (const key of path.split('.')) {
    current = current.flatMap((v) => {
      const next = v !== null && typeof v === 'object' && !(v instanceof Uint8Array) ? (v as Plain)[key] : undefined;
      return Array.isArray(next) ? next : next === undefined ? [] : [next];
    });
  }
  return current;
}

export const TYPE_URL_PREFIX = 'type.googleapis.com/protocol.';

/** A contract parameter as decoded from the raw bytes: byte fields as lower-case hex, int64 as bigint. */
export type DecodedParameter =
  | { type: 'TransferContract'; owner_address: string; to_address: string; amount: bigint }
  | { type: 'TransferAssetContract'; asset_name: string; owner_address: string; to_address: string; amount: bigint }
  | {
      type: 'TriggerSmartContract';
      owner_address: string;
      contract_address: string;
      call_value: bigint;
      data: string;
      call_token_value: bigint;
      token_id: bigint;
    }
  /**
   * Any other contract type: its owner (field 1 for nearly all of them), and for the types that
   * name other accounts, their addresses (hex) by JSON path (see `ADDRESS_FIELDS`); `{}` otherwise.
   */
  | { type: 'other'; owner_address: string; addresses: Record<string, string[]> };

export interface DecodedContract {
  /** ContractType number. */
  typeNumber: number;
  typeUrl: string;
  permissionId: number;
  parameter: DecodedParameter;
}

export interface DecodedRawData {
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: bigint;
  timestamp: bigint;
  fee_limit: bigint;
  /** Memo, hex. */
  data: string;
  contract: DecodedContract[];
}

export interface ProtobufDecodeError {
  kind: 'protobuf';
  detail: string;
}

const hex = (bytes: unknown): string => (bytes instanceof Uint8Array ? Buffer.from(bytes).toString('hex') : '');
const big = (value: unknown): bigint => (value === undefined || value === null ? 0n : BigInt(String(value)));

type Plain = Record<string, unknown>;

function decodeParameter(typeName: string, value: Uint8Array): DecodedParameter {
  const plain = (type: protobuf.Type): Plain => type.toObject(type.decode(value), { longs: String }) as Plain;
  switch (typeName) {
    case 'TransferContract': {
      const p = plain(parameterTypes.TransferContract);
      return {
        type: typeName,
        owner_address: hex(p.owner_address),
        to_address: hex(p.to_address),
        amount: big(p.amount),
      };
    }
    case 'TransferAssetContract': {
      const p = plain(parameterTypes.TransferAssetContract);
      return {
        type: typeName,
        asset_name: hex(p.asset_name),
        owner_address: hex(p.owner_address),
        to_address: hex(p.to_address),
        amount: big(p.amount),
      };
    }
    case 'TriggerSmartContract': {
      const p = plain(parameterTypes.TriggerSmartContract);
      return {
        type: typeName,
        owner_address: hex(p.owner_address),
        contract_address: hex(p.contract_address),
        call_value: big(p.call_value),
        data: hex(p.data),
        call_token_value: big(p.call_token_value),
        token_id: big(p.token_id),
      };
    }
    default: {
      const known = addressFieldsOf(typeName);
      if (!known) return { type: 'other', owner_address: hex(plain(OwnerOnlyType).owner_address), addresses: {} };
      const p = plain(root.lookupType(`protocol.${known.message}`));
      const addresses = Object.fromEntries(known.paths.map((path) => [path, valuesAtPath(p, path).map(hex)]));
      return { type: 'other', owner_address: hex(p.owner_address), addresses };
    }
  }
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Decodes `raw_data_hex` (a serialized `Transaction.raw`). Malformed bytes are an error value, never a throw. */
export function decodeRawData(rawDataHex: string): Result<DecodedRawData, ProtobufDecodeError> {
  if (!HEX.test(rawDataHex)) return err({ kind: 'protobuf', detail: 'raw_data_hex is not hex' });
  try {
    const message = TransactionRawType.decode(Buffer.from(rawDataHex, 'hex'));
    const raw = TransactionRawType.toObject(message, { longs: String, arrays: true }) as Plain;
    const contracts = (raw.contract as Plain[]).map((c): DecodedContract => {
      const parameter = (c.parameter ?? {}) as Plain;
      const typeUrl = typeof parameter.type_url === 'string' ? parameter.type_url : '';
      const typeName = typeUrl.startsWith(TYPE_URL_PREFIX) ? typeUrl.slice(TYPE_URL_PREFIX.length) : '';
      const value = parameter.value instanceof Uint8Array ? parameter.value : new Uint8Array();
      return {
        typeNumber: typeof c.type === 'number' ? c.type : 0,
        typeUrl,
        permissionId: typeof c.Permission_id === 'number' ? c.Permission_id : 0,
        parameter: decodeParameter(typeName, value),
      };
    });
    return ok({
      ref_block_bytes: hex(raw.ref_block_bytes),
      ref_block_hash: hex(raw.ref_block_hash),
      expiration: big(raw.expiration),
      timestamp: big(raw.timestamp),
      fee_limit: big(raw.fee_limit),
      data: hex(raw.data),
      contract: contracts,
    });
  } catch (e) {
    return err({ kind: 'protobuf', detail: e instanceof Error ? e.message : String(e) });
  }
}

/** A parameter field for `encodeRawData`: byte fields hex, int64 as bigint/number, nested messages as objects. */
export type RawParameterValue = string | bigint | number | RawParameterValue[] | { [field: string]: RawParameterValue };

/** What `encodeRawData` needs: hex byte fields, integer fields as bigint or safe numbers. */
export interface RawDataInput {
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: bigint | number;
  timestamp: bigint | number;
  fee_limit?: bigint | number;
  data?: string;
  contract: {
    typeNumber: number;
    typeName: string;
    permissionId?: number;
    /** Parameter fields as named in the proto: byte fields hex, int64 as bigint/number. */
    parameter: Record<string, RawParameterValue>;
  }[];
}

const BYTE_FIELDS = new Set([
  'owner_address',
  'to_address',
  'asset_name',
  'contract_address',
  'data',
  'receiver_address',
  'account_address',
  'account_name',
  'account_id',
  'address',
]);

/**
 * Serializes a `Transaction.raw` for the supported parameter types (test support builds synthetic
 * transactions with the same message definitions the verifier decodes with).
 */
export function encodeRawData(input: RawDataInput): string {
  const field = (name: string, v: RawParameterValue): unknown =>
    Array.isArray(v)
      ? v.map((item) => field(name, item))
      : typeof v === 'object'
        ? toMessage(v)
        : BYTE_FIELDS.has(name)
          ? Buffer.from(String(v), 'hex')
          : typeof v === 'bigint'
            ? v.toString()
            : v;
  const toMessage = (fields: { [field: string]: RawParameterValue }): Plain =>
    Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, field(k, v)]));
  const contract = input.contract.map((c) => {
    const other = addressFieldsOf(c.typeName);
    const type =
      parameterTypes[c.typeName as keyof typeof parameterTypes] ??
      (other ? root.lookupType(`protocol.${other.message}`) : OwnerOnlyType);
    const value = type.encode(type.fromObject(toMessage(c.parameter))).finish();
    return {
      type: c.typeNumber,
      parameter: { type_url: TYPE_URL_PREFIX + c.typeName, value },
      ...(c.permissionId ? { Permission_id: c.permissionId } : {}),
    };
  });
  const message = TransactionRawType.fromObject({
    ref_block_bytes: Buffer.from(input.ref_block_bytes, 'hex'),
    ref_block_hash: Buffer.from(input.ref_block_hash, 'hex'),
    expiration: input.expiration.toString(),
    timestamp: input.timestamp.toString(),
    ...(input.fee_limit !== undefined ? { fee_limit: input.fee_limit.toString() } : {}),
    ...(input.data ? { data: Buffer.from(input.data, 'hex') } : {}),
    contract,
  });
  return Buffer.from(TransactionRawType.encode(message).finish()).toString('hex');
}
