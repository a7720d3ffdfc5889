import { randomUUID } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import { assess } from '../assessment/assess.js';
import type { ChainFactsProvider } from '../chain/facts.js';
import type { BeginCheckParams, CheckCredential } from '../stores/checks.js';
import {
  payloadTooLarge,
  validateCheckRequest,
  validateIdempotencyKey,
  type NormalizedCheckRequest,
} from '../validation/index.js';
import { admitted, apiKeyCredential, rateWindowOf, type Admission } from './access.js';
import { providerContextOf, STOPPED, type RequestScope } from './context.js';
import type { RuntimeError } from './errors.js';
import { gatherEvidence } from './evidence.js';
import { CheckHold, failure, type CheckOutcome, type Held } from './hold.js';
import type { CoreHttpRequest, CoreHttpResponse } from './http.js';
import type { LimitState } from './response.js';
import { monthOf, secondsUntil } from './time.js';

/**
 * `POST /v1/transaction/check`, in this order:
 *   request id → api switch (service.ts) → key present → `begin` (one store call: authenticate,
 *   organization status and entitlements, rate limit, concurrency slot if a TRON provider is
 *   configured, then for a valid request the network entitlement, the Idempotency-Key claim and
 *   the quota reservation) → answer what begin refused (401/403/429, 503 api_not_configured, 422
 *   for the Idempotency-Key or body, 403 network, 409, replay) → chain facts → transfer
 *   selection → risk signals → assessment → `finish` (one store call: store or abandon the key,
 *   bill iff coverage is complete else release, free the slot, record usage) → response.
 * Validation runs before `begin` (it is pure) but is answered where the order above puts it.
 * Usage is recorded for admitted checks (past key, status and rate limit), except replays and
 * in-progress 409s, which are the same logical check.
 */
export function handleCheck(scope: RequestScope, req: CoreHttpRequest): Promise<CoreHttpResponse> {
  const credential = apiKeyCredential(req.headers['x-api-key']);
  // Not async itself: one promise layer fewer on every check.
  return credential ? checkAs(scope, credential, req) : Promise.resolve(scope.fail({ kind: 'invalid_api_key' }));
}

/**
 * The same check for a credential its caller established: `handleCheck`'s API key, or an
 * organization another entry point authenticated (`SafetyService.checkAsOrganization`). Never routed.
 */
export async function checkAs(
  scope: RequestScope,
  credential: CheckCredential,
  req: CoreHttpRequest,
): Promise<CoreHttpResponse> {
  const begun = await begin(scope, credential, readInput(req));
  if ('response' in begun) return begun.response;
  const { hold, run } = begun;
  // `return await`: an async function returning a promise costs two more microtasks than awaiting it.
  if (!run) return await hold.close(begun.outcome);
  let outcome: CheckOutcome;
  try {
    outcome = await execute(scope, run.chain, run.request);
  } catch (error) {
    scope.report(error, 'check');
    outcome = failure(scope, { kind: 'internal_error' }, run.request.network);
  }
  return await hold.close(outcome);
}

interface CheckInput {
  request: NormalizedCheckRequest;
  idempotencyKey: string | null;
}

/** The Idempotency-Key and the body, validated in that order (pure: answered after begin's refusals). */
function readInput(req: CoreHttpRequest): Result<CheckInput, RuntimeError> {
  const idempotencyKey = validateIdempotencyKey(req.headers['idempotency-key']);
  if (idempotencyKey.isErr()) return err({ kind: 'invalid_request', ...idempotencyKey.error });
  const validated = req.bodyTooLarge ? err(payloadTooLarge()) : validateCheckRequest(req.body);
  if (validated.isErr()) return err({ kind: 'invalid_request', ...validated.error });
  return ok({ request: validated.value, idempotencyKey: idempotencyKey.value });
}

type Begun =
  | { response: CoreHttpResponse }
  | { hold: CheckHold; outcome: CheckOutcome; run?: undefined }
  | { hold: CheckHold; run: { chain: ChainFactsProvider; request: NormalizedCheckRequest } };

/** The one `begin` call, and what its answer means (`decided`). */
async function begin(
  scope: RequestScope,
  credential: CheckCredential,
  input: Result<CheckInput, RuntimeError>,
): Promise<Begun> {
  const { stores } = scope.ctx;
  const now = scope.now();
  const month = monthOf(now);
  const params = beginParams(scope, credential, input, { now, period: month.key });
  let answer;
  try {
    answer = await stores.checks.begin(params);
  } catch (error) {
    // Nothing was taken; limits that cannot be enforced fail closed.
    scope.report(error, 'begin');
    return { response: scope.fail({ kind: 'rate_limiter_unavailable' }) };
  }
  const admission = admitted(scope, answer, now);
  if (admission.isErr()) return { response: scope.fail(admission.error.error, admission.error.limits) };
  return decided(scope, admission.value, { input, params, now, periodEnd: month.end });
}

/** What an admitted `begin` answer means: an answer now, a refusal to close, or the check to run. */
function decided(
  scope: RequestScope,
  a: Admission & { limits: LimitState },
  {
    input,
    params,
    now,
    periodEnd,
  }: { input: Result<CheckInput, RuntimeError>; params: BeginCheckParams; now: Date; periodEnd: Date },
): Begun {
  const organizationId = a.access.organization.id;
  const slotId = params.slot?.slotId ?? null;
  const idempotency = params.work?.idempotency;
  const claim = idempotency ? { key: idempotency.key, owner: idempotency.owner } : null;
  const none: Held = { organizationId, begunAt: now, slotId: null, reservationId: null, claim: null };
  const slot: Held = { organizationId, begunAt: now, slotId, reservationId: null, claim: null };
  const network = input.isOk() ? input.value.request.network : null;
  const { limits } = a;
  switch (a.stage) {
    case 'rate_limited': // answered by `admitted`
    case 'admitted': {
      // Nothing asked past the rate: no TRON provider (answered first, as before), or bad input (no slot taken).
      const configured = scope.ctx.providers.chain !== null;
      const error: RuntimeError = configured && input.isErr() ? input.error : { kind: 'api_not_configured' };
      return refused(scope, { held: none, error, limits, network: null });
    }
    case 'slot_busy': {
      const error: RuntimeError = { kind: 'concurrency_limit_exceeded', retryAfterSeconds: 1 };
      return refused(scope, { held: none, error, limits, network: null });
    }
    case 'invalid': {
      const error: RuntimeError = input.isErr() ? input.error : { kind: 'internal_error' };
      return refused(scope, { held: slot, error, limits, network: null });
    }
    case 'network_not_enabled': {
      // An access control like the key and status: checked before any replay (Errors rule 3), never stored.
      const error: RuntimeError = { kind: 'network_not_enabled', network: network ?? '' };
      return refused(scope, { held: slot, error, limits, network });
    }
    case 'conflict':
      return refused(scope, { held: slot, error: { kind: 'idempotency_conflict' }, limits, network });
    case 'in_progress':
      return { response: scope.fail({ kind: 'idempotency_in_progress', retryAfterSeconds: 1 }, a.limits) };
    case 'completed':
      return { response: replay(scope, a, { rate: limits.rate, quota: quotaState(a, periodEnd) }) };
    case 'quota_exceeded': {
      const error: RuntimeError = { kind: 'quota_exceeded', retryAfterSeconds: secondsUntil(periodEnd, now) };
      const withQuota = { rate: limits.rate, quota: quotaState(a, periodEnd) };
      return refused(scope, { held: { ...slot, claim }, error, limits: withQuota, network });
    }
    case 'started': {
      const held = { organizationId, begunAt: now, slotId, claim, reservationId: params.work!.quota.reservationId };
      const hold = new CheckHold(scope, held, { rate: limits.rate, quota: quotaState(a, periodEnd) });
      return {
        hold,
        run: { chain: scope.ctx.providers.chain!, request: (input as { value: CheckInput }).value.request },
      };
    }
  }
}

/** A check `begin` admitted but refused: what it holds, to be given back with the refusal's answer. */
function refused(
  scope: RequestScope,
  { held, error, limits, network }: { held: Held; error: RuntimeError; limits: LimitState; network: string | null },
): Begun {
  return { hold: new CheckHold(scope, held, limits), outcome: failure(scope, error, network) };
}

/**
 * What `begin` is asked to take: a slot only for a valid request when a TRON provider is configured (bad
 * input is answered its 422 at once, never a retryable 429 for a slot it would not use), the work only
 * for a valid request.
 */
function beginParams(
  scope: RequestScope,
  credential: CheckCredential,
  input: Result<CheckInput, RuntimeError>,
  { now, period }: { now: Date; period: string },
): BeginCheckParams {
  const { rateWindowStart } = rateWindowOf(now);
  const lease = new Date(now.getTime() + scope.ctx.options.leaseMs);
  // One id names everything the check holds: its slot, its claim on the key and its reservation.
  const checkId = newCheckId();
  if (input.isErr()) return { credential, now, rateWindowStart, slot: null, work: null };
  const slot = scope.ctx.providers.chain ? { slotId: checkId, expiresAt: lease } : null;
  const { request, idempotencyKey } = input.value;
  const idempotency =
    idempotencyKey === null
      ? null
      : { key: idempotencyKey, fingerprint: request.fingerprint, owner: checkId, leaseExpiresAt: lease };
  const quota = { period, reservationId: checkId, expiresAt: lease };
  return { credential, now, rateWindowStart, slot, work: { network: request.network, idempotency, quota } };
}

/**
 * A random id, flat. `randomUUID` builds its text by concatenation, 14 of V8's cons-string nodes
 * (about 450 bytes) until something reads a character; a store may keep the id for the whole lease
 * (store-memory's queue of slot expiries), so its characters are read once here, which makes V8
 * flatten it in place into one 36-character string.
 */
function newCheckId(): string {
  const id = randomUUID();
  id.charCodeAt(0);
  return id;
}

function quotaState(admission: Admission, periodEnd: Date): LimitState['quota'] {
  const usage = 'quota' in admission ? admission.quota : { used: 0, reserved: 0 };
  return { limit: admission.entitlements.monthlyQuota, usage, periodEnd };
}

/**
 * The stored response as it was, plus this request's rate and quota headers and the replay flag.
 * X-Request-ID is the original request's, stored with it; a row stored without it (by an unreleased
 * build that left it out) has it as the body's `request_id`.
 */
function replay(scope: RequestScope, admission: Admission, limits: LimitState): CoreHttpResponse {
  if (admission.stage !== 'completed') throw new Error('replay of a check that did not complete');
  const stored = admission.response;
  const requestId = stored.headers['X-Request-ID'] ?? requestIdOf(stored.body);
  const headers: Record<string, string> =
    requestId === null ? { ...stored.headers } : { 'X-Request-ID': requestId, ...stored.headers };
  headers['Idempotent-Replayed'] = 'true';
  return scope.respond({ status: stored.status, body: stored.body, headers }, limits);
}

/** The `request_id` of a stored body (a result or an error envelope: both carry it); null if it has none. */
function requestIdOf(body: string): string | null {
  try {
    const id = (JSON.parse(body) as { request_id?: unknown }).request_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** From the reservation to the decided outcome: evidence, assessment, the serialized result. */
async function execute(
  scope: RequestScope,
  chain: ChainFactsProvider,
  request: NormalizedCheckRequest,
): Promise<CheckOutcome> {
  const { network } = request;
  if (scope.aborted) return failure(scope, scope.abortError(), network);
  // The one race of a check: a provider that ignores its signal must not keep the check's holdings.
  // Providers get a context whose signal is made only if one of them reads it (providerContextOf).
  const evidence = await scope.untilProvidersStop(
    gatherEvidence({ request, chain, risk: scope.ctx.providers.risk, ctx: providerContextOf(scope) }),
  );
  if (evidence === STOPPED) return failure(scope, scope.abortError(), network);
  if (evidence.isErr()) {
    return failure(scope, evidence.error.kind === 'aborted' ? scope.abortError() : evidence.error, network);
  }
  if (scope.aborted) return failure(scope, scope.abortError(), network);
  const { facts, signals } = evidence.value;
  const assessed = assess({
    requestId: scope.requestId,
    txHash: request.txHash,
    expectations: request.expectations,
    facts,
    signals,
    checkedAt: scope.now(),
  });
  if (assessed.isErr()) {
    // Known only now (the asset's decimals): a request error, not a finalized result. The key is
    // released so the corrected body can be sent with the same key.
    return failure(
      scope,
      { kind: 'invalid_request', code: assessed.error.code, message: assessed.error.message },
      network,
    );
  }
  const result = assessed.value;
  return {
    reply: { status: 200, body: JSON.stringify(result) },
    bill: result.coverage === 'complete',
    store: true,
    usage: { network, overallState: result.overall_state, coverage: result.coverage, errorCode: null },
  };
}
