export {
  createSafetyService,
  CHECK_PATH,
  USAGE_PATH,
  type CheckCall,
  type OrganizationCheckCall,
  type SafetyService,
  type ServiceResult,
  type UsageCall,
} from './service.js';
export type { SafetyProviders, SafetyServiceOptions } from './context.js';
export { describeError, type ErrorDescription, type RuntimeError } from './errors.js';
export { errorBody } from './response.js';
export {
  keyMetadata,
  mayManageApiKeys,
  mayRunChecks,
  type AdminActor,
  type AdminApi,
  type AdminError,
  type ApiKeyMetadata,
  type AssignmentInput,
  type IssuedApiKey,
  type MemberRole,
  type OrganizationView,
} from './admin.js';
export { API_KEY_PREFIX, generateApiKey, hashApiKey } from './keys.js';
export {
  INVITATION_TTL_MS,
  MEMBER_ROLES,
  mayManageMembers,
  normalizeEmail,
  type IssuedInvitation,
  type MembersApi,
  type MemberView,
} from './members.js';
export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from './passwords.js';
export { newToken, tokenHash } from './tokens.js';
export { requestIdFrom } from './request-id.js';
export {
  MIN_LATENCY_SAMPLES,
  STATISTICS_DAYS,
  type LatencyStatistics,
  type UsageStatistics,
} from './usage-statistics.js';
export { API_RESPONSE_HEADERS, withApiHeaders } from './api-headers.js';
