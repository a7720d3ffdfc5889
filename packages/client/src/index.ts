export {
  createSafetyClient,
  type CallOptions,
  type CheckAnswer,
  type CheckFailure,
  type CheckOptions,
  type SafetyClient,
  type SafetyClientOptions,
  type UsageAnswer,
} from './client.js';
export type { AnswerMeta, Answered, ApiFailure, ClientFailure, NotSentFailure, UnresolvedFailure } from './answers.js';
export { bookingProblems, isSafeToBook, type BookingOptions, type CheckedPayment } from './booking.js';
export {
  CheckResponse,
  Coverage,
  ErrorResponse,
  Exposure,
  Freshness,
  KNOWN_REASON_CODES,
  OverallState,
  Reason,
  TransactionState,
  Transfer,
  UsageResponse,
  type CheckRequest,
  type KnownReasonCode,
} from './codecs.js';
export { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
export { CLIENT_VERSION } from './version.js';
