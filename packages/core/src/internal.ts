// @tron-safety/core/internal: what this repository's other packages (the stores, the portal, the
// host, the benchmarks) share with the core beyond its public API. No compatibility promise: names
// here change or go away in any release. Embedders use the root and the documented subpaths.

// Store helpers every store implementation computes alike.
export {
  addDays,
  countKeys,
  countPendingInvitations,
  countUsage,
  emptyUsageDay,
  entitlementsOf,
  invitationCapReached,
  keyCapReached,
  latencyBucket,
  LAST_USED_RESOLUTION_MS,
  LATENCY_BUCKET_BOUNDS_MS,
  summarizeUsageDays,
  utcDay,
} from './stores/index.js';
export { monthOf } from './runtime/time.js';

// The portal's and the host's building blocks.
export { withDefaults } from './defaults.js';
export { mayManageApiKeys, mayRunChecks } from './runtime/admin.js';
export { MEMBER_ROLES, mayManageMembers } from './runtime/members.js';
export { MIN_PASSWORD_LENGTH } from './runtime/passwords.js';
export { newToken, tokenHash } from './runtime/tokens.js';
export { requestIdFrom } from './runtime/request-id.js';
export { MIN_LATENCY_SAMPLES } from './runtime/usage-statistics.js';
export { withApiHeaders } from './runtime/api-headers.js';
export { publicUrl } from './risk/public-url.js';
export { futureDate, notInFuture } from './risk/list-dates.js';
export { nodeApiKeys } from './chain/client.js';

// The adapters' answer to a body parser's refusal (their safetyParserErrors).
export { parserErrorResponse } from './runtime/parser-errors.js';

// Pipeline steps the benchmarks time one by one.
export { validateCheckRequest, type NormalizedCheckRequest } from './validation/check-request.js';
export { gatherEvidence, type Evidence, type EvidenceError, type EvidenceRequest } from './runtime/evidence.js';
export { gatherSignals } from './risk/gather.js';
export { assess } from './assessment/assess.js';
export { selectTransfer } from './assessment/matching.js';
