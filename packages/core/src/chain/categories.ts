import type { TransactionCategory } from '../contract/enums.js';

/**
 * Every `Transaction.Contract.ContractType` of java-tron's Tron.proto: number and the category a
 * payment check reports. TriggerSmartContract is `smart_contract_call` here; the provider upgrades it
 * to `trc20_transfer` only when the call is a token transfer that emitted its Transfer log.
 */
export const CONTRACT_TYPES = {
  AccountCreateContract: { number: 0, category: 'account_operation' },
  TransferContract: { number: 1, category: 'trx_transfer' },
  TransferAssetContract: { number: 2, category: 'trc10_transfer' },
  VoteAssetContract: { number: 3, category: 'voting' },
  VoteWitnessContract: { number: 4, category: 'voting' },
  WitnessCreateContract: { number: 5, category: 'governance' },
  AssetIssueContract: { number: 6, category: 'other' },
  WitnessUpdateContract: { number: 8, category: 'governance' },
  // Buys a TRC10 token with TRX: not a payment of the token to the recipient.
  ParticipateAssetIssueContract: { number: 9, category: 'other' },
  AccountUpdateContract: { number: 10, category: 'account_operation' },
  FreezeBalanceContract: { number: 11, category: 'staking' },
  UnfreezeBalanceContract: { number: 12, category: 'staking' },
  WithdrawBalanceContract: { number: 13, category: 'staking' },
  UnfreezeAssetContract: { number: 14, category: 'other' },
  UpdateAssetContract: { number: 15, category: 'other' },
  ProposalCreateContract: { number: 16, category: 'governance' },
  ProposalApproveContract: { number: 17, category: 'governance' },
  ProposalDeleteContract: { number: 18, category: 'governance' },
  SetAccountIdContract: { number: 19, category: 'account_operation' },
  CustomContract: { number: 20, category: 'other' },
  CreateSmartContract: { number: 30, category: 'smart_contract_deploy' },
  TriggerSmartContract: { number: 31, category: 'smart_contract_call' },
  GetContract: { number: 32, category: 'other' },
  UpdateSettingContract: { number: 33, category: 'other' },
  ExchangeCreateContract: { number: 41, category: 'exchange' },
  ExchangeInjectContract: { number: 42, category: 'exchange' },
  ExchangeWithdrawContract: { number: 43, category: 'exchange' },
  ExchangeTransactionContract: { number: 44, category: 'exchange' },
  UpdateEnergyLimitContract: { number: 45, category: 'other' },
  AccountPermissionUpdateContract: { number: 46, category: 'permission_update' },
  ClearABIContract: { number: 48, category: 'other' },
  UpdateBrokerageContract: { number: 49, category: 'governance' },
  ShieldedTransferContract: { number: 51, category: 'other' },
  MarketSellAssetContract: { number: 52, category: 'market' },
  MarketCancelOrderContract: { number: 53, category: 'market' },
  FreezeBalanceV2Contract: { number: 54, category: 'staking' },
  UnfreezeBalanceV2Contract: { number: 55, category: 'staking' },
  WithdrawExpireUnfreezeContract: { number: 56, category: 'staking' },
  DelegateResourceContract: { number: 57, category: 'resource_operation' },
  UnDelegateResourceContract: { number: 58, category: 'resource_operation' },
  CancelAllUnfreezeV2Contract: { number: 59, category: 'staking' },
} as const satisfies Record<string, { number: number; category: TransactionCategory }>;

export type ContractTypeName = keyof typeof CONTRACT_TYPES;

export function isKnownContractType(name: string): name is ContractTypeName {
  return Object.hasOwn(CONTRACT_TYPES, name);
}

/** Category of a raw contract type name; names this table does not know (future types) are `other`. */
export function categoryOf(typeName: string): TransactionCategory {
  return isKnownContractType(typeName) ? CONTRACT_TYPES[typeName].category : 'other';
}

/** ContractType number of a known name, for checking the JSON against the raw bytes. */
export function contractTypeNumber(typeName: string): number | null {
  return isKnownContractType(typeName) ? CONTRACT_TYPES[typeName].number : null;
}
