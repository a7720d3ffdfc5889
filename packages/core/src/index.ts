// The public API of @tron-safety/core: what an embedder needs to run checks, listed by name so
// that every export is a decision (test/public-api.test.ts pins the list). Tools live on named
// subpaths: `/tron` (addresses, amounts, the node client), `/sanctions` (OFAC list tools),
// `/testing` and `/fakes` (test doubles). `/internal` serves this repository's other packages
// and carries no compatibility promise.

// Decoding outside data through a codec (the contract's below, or a caller's own) into a Result.
export { decode, formatDecodeError, type DecodeError } from '@tron-safety/codec';

// The service and its HTTP surface.
export {
  createSafetyService,
  CHECK_PATH,
  USAGE_PATH,
  type CheckCall,
  type OrganizationCheckCall,
  type SafetyService,
  type ServiceResult,
  type UsageCall,
} from './runtime/service.js';
export type { SafetyProviders, SafetyServiceOptions } from './runtime/context.js';
export type { CoreHttpHandler, CoreHttpRequest, CoreHttpResponse } from './runtime/http.js';
export { API_RESPONSE_HEADERS } from './runtime/api-headers.js';
export { generateApiKey, hashApiKey } from './runtime/keys.js';
export type {
  AdminActor,
  AdminApi,
  AdminError,
  ApiKeyMetadata,
  AssignmentInput,
  IssuedApiKey,
  MemberRole,
  OrganizationView,
} from './runtime/admin.js';
export type { IssuedInvitation, MembersApi, MemberView } from './runtime/members.js';
export type { LatencyStatistics, UsageStatistics } from './runtime/usage-statistics.js';
export type { RequestError, RequestErrorCode } from './validation/request-error.js';

// The adapter entry: what a Node framework adapter (Express, Koa) calls.
export { answerNodeRequest, isV1Path, type NodeAdapterRequest, type ReadBody } from './runtime/node-adapter.js';

// State: the store interfaces (implementations: @tron-safety/store-memory, @tron-safety/store-postgres).
export type * from './stores/index.js';
export { MAX_ENTITLEMENT } from './stores/organizations.js';

// Providers: chain facts and risk signals.
export {
  createTronChainFactsProvider,
  type ChainStatus,
  type KnownToken,
  type KnownTokenStatus,
  type NodeNetwork,
  type NodeNetworks,
  type TronChainFactsProvider,
  type TronChainFactsProviderOptions,
  type TronNetwork,
  type WrongNetwork,
} from './chain/provider.js';
export type {
  ChainFacts,
  ChainFactsContext,
  ChainFactsProvider,
  ChainProviderError,
  Disagreement,
  Gap,
  ProviderContext,
  Transfer,
} from './chain/facts.js';
export type {
  ProviderCall,
  ProviderCallEnd,
  ProviderCallObserver,
  ProviderCallOutcome,
} from './chain/call-observer.js';
export type * from './risk/signals.js';
export {
  createRiskProviders,
  riskConfigFromEnv,
  RISK_CONFIG_VARIABLES,
  type ConfiguredRiskProviders,
  type RiskConfig,
  type RiskConfigError,
  type RiskHooks,
} from './risk/providers.js';
export { createNotConfiguredAmlProvider } from './risk/aml-not-configured.js';
export { createChainalysisAmlProvider, type ChainalysisEntityOptions } from './risk/chainalysis-entity.js';
export { createChainalysisSanctionsProvider, type ChainalysisSanctionsOptions } from './risk/chainalysis-sanctions.js';
export {
  createListSanctionsProvider,
  type ListedAddress,
  type ListSanctionsOptions,
  type SanctionsList,
  type SanctionsLists,
  type SanctionsListsStatus,
} from './risk/sanctions-list.js';
export { combineSanctionsProviders } from './risk/sanctions-combine.js';
export {
  createTokenAuthenticityProvider,
  createTokenRegistry,
  loadTokenRegistryFile,
  type OfficialToken,
  type OfficialTokenData,
  type TokenRegistry,
} from './risk/token-registry.js';

// The contract: the spec's models, enums and reason codes as io-ts codecs (each also a type), and
// the OpenAPI document generated from them.
export * from './contract/enums.js';
export * from './contract/models.js';
export { REASONS, ReasonCode } from './contract/reasons.js';
export { renderOpenApiJson } from './contract/openapi.js';
