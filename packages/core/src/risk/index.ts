export * from './aml-combine.js';
export * from './aml-levels.js';
export * from './aml-not-configured.js';
export {
  amlAnswerFromEntity,
  createChainalysisAmlProvider,
  INDIRECT_EXPOSURE_HOPS,
  type ChainalysisEntityOptions,
} from './chainalysis-entity.js';
export * from './chainalysis-sanctions.js';
export { OFFICIAL_TOKENS_AS_OF } from './data/official-tokens.js';
export { OFAC_TRON_AS_OF, OFAC_TRON_PROVENANCE } from './data/ofac-tron.js';
export * from './gather.js';
export { skeleton as tokenTextSkeleton } from './impersonation.js';
export * from './providers.js';
export * from './sanctions-combine.js';
export * from './sanctions-list.js';
export * from './ofac/download.js';
export * from './ofac/list-in-use.js';
export * from './ofac/refresh.js';
export * from './ofac/sdn-xml.js';
export {
  DEFAULT_RISK_CACHE_TTL_MS,
  DEFAULT_RISK_DEADLINE_MARGIN_MS,
  DEFAULT_RISK_TIMEOUT_MS,
} from './shared-lookup.js';
export * from './token-registry.js';
