// @tron-safety/core/tron: TRON tools beside the service: base58 addresses, token amounts, the
// java-tron HTTP client, the contract-type categories and the networks' genesis blocks.
export * from './tron/address.js';
export * from './tron/amount.js';
export {
  TronNodeClient,
  describeNodeError,
  DEFAULT_RETRY,
  type NodeCallError,
  type NodeCallFailure,
  type RetryPolicy,
  type TronNode,
  type TronNodeClientOptions,
} from './chain/client.js';
export { CONTRACT_TYPES, categoryOf, contractTypeNumber, type ContractTypeName } from './chain/categories.js';
export { REQUIRED_CONFIRMATIONS } from './chain/facts.js';
export { REGISTRY_KNOWN_TOKENS, knownTokensOf } from './chain/known-tokens.js';
export { TRON_MAINNET, TRON_NILE, TRON_SHASTA, type TronNetwork } from './chain/network.js';
