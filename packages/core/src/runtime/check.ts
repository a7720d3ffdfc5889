import { randomUUID } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import { assess } from '../assessment/assess.js';
import type { ChainFactsProvider } from '../chain/facts.js';
import type { Coverage, ErrorCode, OverallState } from '../contract/enums.js';
import type { Entitlements } from '../stores/organizations.js';
import type { IdempotencyScope, StoredResponse } from '../stores/idempotency.js';
import type { QuotaUsage } from '../stores/quota.js';
import {
  payloadTooLarge,
  validateCheckRequest,
  validateIdempotencyKey,
  type NormalizedCheckRequest,
} from '../validation/index.js';
import { admit } from './access.js';
import type { RequestScope } from './context.js';
import { gatherEvidence } from './evidence.js';
import { JSON_CONTENT_TYPE, type RuntimeError } from './errors.js';
import type { CoreHttpRequest, CoreHttpResponse } from './http.js';
import { quotaHeaders } from './limit-headers.js';
import { monthOf, secondsUntil } from './time.js';

/**
 * `POST /v1/transaction/check`, in this order:
 *   request id → api switch (service.ts) → authenticate key → organization status and
 *   entitlements → rate limit → TRON provider configured → concurrency slot → Idempotency-Key
 *   and body validation (422: nothing held, nothing stored) → network entitlement (an access
 *   control: before any replay, never stored) → idempotency begin (replay / 409) → quota
 *   reserve → chain facts → transfer selection → risk signals → assessment → commit the unit
 *   iff coverage is complete, else release → store the result → usage record → response.
 * Usage records are written for admitted checks (past key, status and rate limit), except
 * replays and in-progress 409s, which are the same logical check.
 */

/**
 * What one check holds and must give back on every way out: a concurrency slot, a quota
 * reservation, an in-progress idempotency record. `finish` returns whatever is still held.
 */
interface Held {
  organizationId: string;
  /** The quota the reservation counts against, for the X-Quota-* headers. */
  quota: { limit: number; periodEnd: Date } | null;
  slotId: string | null;
  reservationId: string | null;
  idempotency: { scope: IdempotencyScope; owner: string } | null;
}

/** The usage record being built; `null` organization = not admitted, nothing recorded. */
interface UsageDraft {
  organizationId: string | null;
  /** False for replays and in-progress 409s: the same logical check, recorded once. */
  record: boolean;
  network: string | null;
  overallState: OverallState | null;
  coverage: Coverage | null;
  billable: boolean;
  errorCode: ErrorCode | null;
}

/**
 * Errors finalized for an executing idempotent operation are stored and replayed (spec Errors
 * rule 2). Everything else releases the key: 422 `invalid_expected_amount` (so the corrected
 * body can be sent with the same key), 500 and shutdown (nothing was decided).
 */
const STORED_ERRORS = new Set<RuntimeError['kind']>(['quota_exceeded', 'provider_unavailable', 'request_timeout']);

/** `POST /v1/transaction/check`, from an admitted request to the response. Never throws. */
export async function handleCheck(scope: RequestScope, req: CoreHttpRequest): Promise<CoreHttpResponse> {
  const usage: UsageDraft = {
    organizationId: null,
    record: true,
    network: null,
    overallState: null,
    coverage: null,
    billable: false,
    errorCode: null,
  };
  const held: Held = { organizationId: '', quota: null, slotId: null, reservationId: null, idempotency: null };
  let response: CoreHttpResponse;
  try {
    response = await runCheck(scope, req, held, usage);
  } catch (error) {
    scope.report(error, 'check');
    response = scope.error({ kind: 'internal_error' });
  }
  usage.errorCode = scope.errorCode;
  await giveBack(scope, held);
  if (usage.organizationId !== null && usage.record) {
    const { organizationId, network, overallState, coverage, billable, errorCode } = usage;
    // Also past the deadline (a 504 is recorded too); a lost record is reported, the response stands.
    await scope.settle(
      'usage',
      scope.ctx.stores.usage.appendUsage({
        organizationId,
        at: scope.now(),
        network,
        overallState,
        coverage,
        billable,
        latencyMs: scope.elapsedMs(),
        errorCode,
      }),
    );
  }
  return response;
}

async function runCheck(
  scope: RequestScope,
  req: CoreHttpRequest,
  held: Held,
  usage: UsageDraft,
): Promise<CoreHttpResponse> {
  const { stores, providers, options } = scope.ctx;
  const admitted = await admit(scope, req.headers['x-api-key']);
  if (admitted.isErr()) return scope.error(admitted.error);
  const organizationId = admitted.value.access.organization.id;
  const { entitlements } = admitted.value;
  usage.organizationId = organizationId;
  held.organizationId = organizationId;

  const chain = providers.chain;
  if (!chain) return scope.error({ kind: 'api_not_configured' });

  const slotId = randomUUID();
  held.slotId = slotId;
  const now = scope.now();
  const slot = await scope.step(
    'concurrency',
    stores.limits.acquireSlot({
      organizationId,
      slotId,
      limit: entitlements.maxConcurrentRequests,
      now,
      expiresAt: new Date(now.getTime() + options.leaseMs),
    }),
    { kind: 'rate_limiter_unavailable' },
  );
  if (slot.isErr()) return scope.error(slot.error);
  if (!slot.value.ok) {
    held.slotId = null;
    return scope.error({ kind: 'concurrency_limit_exceeded', retryAfterSeconds: 1 });
  }

  const idempotencyKey = validateIdempotencyKey(req.headers['idempotency-key']);
  if (idempotencyKey.isErr()) return scope.error({ kind: 'invalid_request', ...idempotencyKey.error });
  const validated = req.bodyTooLarge ? err(payloadTooLarge()) : validateCheckRequest(req.body);
  if (validated.isErr()) return scope.error({ kind: 'invalid_request', ...validated.error });
  const request = validated.value;
  usage.network = request.network;

  // An access control like the key and status: checked before any replay (Errors rule 3), never stored.
  if (!entitlements.enabledNetworks.includes(request.network)) {
    return scope.error({ kind: 'network_not_enabled', network: request.network });
  }

  if (idempotencyKey.value !== null) {
    const idempotencyScope = { organizationId, key: idempotencyKey.value };
    const owner = randomUUID();
    held.idempotency = { scope: idempotencyScope, owner };
    const begun = await scope.step(
      'idempotency',
      stores.idempotency.begin(idempotencyScope, {
        fingerprint: request.fingerprint,
        owner,
        now,
        leaseExpiresAt: new Date(now.getTime() + options.leaseMs),
      }),
    );
    if (begun.isErr()) return scope.error(begun.error);
    if (begun.value.kind !== 'started') held.idempotency = null;
    switch (begun.value.kind) {
      case 'conflict':
        return scope.error({ kind: 'idempotency_conflict' });
      case 'in_progress':
        usage.record = false;
        return scope.error({ kind: 'idempotency_in_progress', retryAfterSeconds: 1 });
      case 'completed':
        usage.record = false;
        await setCurrentQuotaHeaders(scope, organizationId, entitlements.monthlyQuota);
        return replay(scope, begun.value.response);
      case 'started':
        break;
    }
  }

  const executed = await execute(scope, chain, request, entitlements, held, usage);
  if (executed.isOk()) return executed.value;
  const error = executed.error;
  // The reservation goes back before the answer, so the quota headers show the final state.
  await giveBackReservation(scope, held);
  const response = scope.error(error);
  if (STORED_ERRORS.has(error.kind)) await storeResult(scope, held, response);
  return response;
}

/** From the quota reservation to the assessed, billed and stored 200. */
async function execute(
  scope: RequestScope,
  chain: ChainFactsProvider,
  request: NormalizedCheckRequest,
  entitlements: Entitlements,
  held: Held,
  usage: UsageDraft,
): Promise<Result<CoreHttpResponse, RuntimeError>> {
  const { stores, providers, options } = scope.ctx;
  const { organizationId } = held;
  const now = scope.now();
  const month = monthOf(now);
  const limit = entitlements.monthlyQuota;
  const reservationId = randomUUID();
  held.reservationId = reservationId;
  held.quota = { limit, periodEnd: month.end };
  const reserved = await scope.step(
    'quota',
    stores.quota.reserve({
      organizationId,
      period: month.key,
      limit,
      reservationId,
      now,
      expiresAt: new Date(now.getTime() + options.leaseMs),
    }),
  );
  if (reserved.isErr()) return err(reserved.error);
  setQuotaHeaders(scope, limit, reserved.value.usage, month.end);
  if (!reserved.value.ok) {
    held.reservationId = null;
    return err({ kind: 'quota_exceeded', retryAfterSeconds: secondsUntil(month.end, now) });
  }

  const ctx = { signal: scope.signal, deadlineAt: scope.deadlineAt };
  const gathered = await scope.step('evidence', gatherEvidence({ request, chain, risk: providers.risk, ctx }));
  if (gathered.isErr()) return err(gathered.error);
  if (gathered.value.isErr()) {
    return err(gathered.value.error.kind === 'aborted' ? scope.abortError() : gathered.value.error);
  }
  const { facts: chainFacts, signals } = gathered.value.value;

  const assessed = assess({
    requestId: scope.requestId,
    txHash: request.txHash,
    expectations: request.expectations,
    facts: chainFacts,
    signals,
    checkedAt: scope.now(),
  });
  if (assessed.isErr()) {
    // Known only now (the asset's decimals): a request error, not a finalized result. The key
    // is released (in `giveBack`) so the corrected body can be sent with the same key.
    return err({ kind: 'invalid_request', code: assessed.error.code, message: assessed.error.message });
  }
  const result = assessed.value;

  const body = JSON.stringify(result);
  const own = { 'Content-Type': JSON_CONTENT_TYPE, 'X-Request-ID': scope.requestId };

  // Bill iff coverage is complete; a failed commit means the unit was not billed: fail closed.
  const billable = result.coverage === 'complete';
  const finalizing = billable
    ? stores.quota.commit({ organizationId, reservationId, now: scope.now() })
    : stores.quota.release({ organizationId, reservationId, now: scope.now() });
  const finalized = await scope.settle('quota finalize', finalizing);
  if (finalized.isErr()) {
    if (finalized.error.kind !== 'settle_timeout') return err(finalized.error);
    settleLate(scope, held, finalizing, { status: 200, headers: own, body });
    return err({ kind: 'request_timeout' });
  }
  held.reservationId = null;
  if (finalized.value) setQuotaHeaders(scope, limit, finalized.value, month.end);
  else if (billable)
    scope.report(new Error('the quota reservation expired before its commit: not billed'), 'quota finalize');
  usage.billable = billable && finalized.value !== null;
  usage.overallState = result.overall_state;
  usage.coverage = result.coverage;

  const response = { status: 200, headers: { ...scope.headers, ...own }, body };
  await storeResult(scope, held, { status: 200, headers: own, body });
  return ok(response);
}

/**
 * The store may still bill or release after the caller got its 504; whatever it decides is what a
 * retry with the same key must see. The reservation and the idempotency record leave `held` (the
 * 504 is not stored, nothing is given back now); once the store answers, the decided result is
 * stored under the key (billed once, replayed to the retry), or, if it failed, both are given back.
 */
function settleLate(
  scope: RequestScope,
  held: Held,
  finalizing: Promise<QuotaUsage | null>,
  decided: CoreHttpResponse,
): void {
  const late: Held = { ...held, slotId: null };
  held.reservationId = null;
  held.idempotency = null;
  finalizing
    .then(
      async (usage) => {
        late.reservationId = null;
        if (usage) await storeResult(scope, late, decided);
      },
      (error: unknown) => scope.report(error, 'quota finalize'),
    )
    .then(() => giveBack(scope, late))
    .catch((error: unknown) => scope.report(error, 'late settle'));
}

function setQuotaHeaders(scope: RequestScope, limit: number, usage: QuotaUsage, periodEnd: Date): void {
  Object.assign(scope.headers, quotaHeaders(limit, usage, periodEnd));
}

/** The quota as it is now, for a replay's X-Quota-* headers; a replay is answered without them if the read fails. */
async function setCurrentQuotaHeaders(scope: RequestScope, organizationId: string, limit: number): Promise<void> {
  const now = scope.now();
  const month = monthOf(now);
  const read = await scope.step(
    'quota read',
    scope.ctx.stores.quota.getUsage({ organizationId, period: month.key, now }),
  );
  if (read.isOk()) setQuotaHeaders(scope, limit, read.value, month.end);
}

/** The stored response as it was, plus this request's rate and quota headers and the replay flag. */
function replay(scope: RequestScope, stored: StoredResponse): CoreHttpResponse {
  return {
    status: stored.status,
    headers: { ...scope.headers, ...stored.headers, 'Idempotent-Replayed': 'true' },
    body: stored.body,
  };
}

/** Completes the idempotency record with the response's own headers (not the rate/quota ones). */
async function storeResult(scope: RequestScope, held: Held, response: CoreHttpResponse): Promise<void> {
  if (!held.idempotency) return;
  const { scope: idempotencyScope, owner } = held.idempotency;
  const own = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !CONTROL_HEADER.test(name)));
  const complete = () => {
    const now = scope.now();
    return scope.ctx.stores.idempotency.complete(idempotencyScope, {
      owner,
      response: { status: response.status, headers: own, body: response.body },
      now,
      retainUntil: new Date(now.getTime() + scope.ctx.options.idempotencyRetentionMs),
    });
  };
  // A second attempt: a key left unstored after billing executes (and bills) again when retried.
  const stored = await complete()
    .catch((error: unknown) => {
      scope.report(error, 'idempotency complete');
      return complete();
    })
    .catch((error: unknown) => {
      // The answer stands; the key is abandoned (giveBack), so a retry executes again.
      scope.report(error, 'idempotency complete');
      return false;
    });
  if (stored) held.idempotency = null;
}

const CONTROL_HEADER = /^(x-ratelimit-|ratelimit|x-quota-)/i;

async function giveBackReservation(scope: RequestScope, held: Held): Promise<void> {
  const { reservationId, organizationId } = held;
  if (reservationId === null) return;
  held.reservationId = null;
  await scope.ctx.stores.quota
    .release({ organizationId, reservationId, now: scope.now() })
    .then((usage) => {
      if (usage && held.quota) setQuotaHeaders(scope, held.quota.limit, usage, held.quota.periodEnd);
    })
    .catch((error: unknown) => scope.report(error, 'quota release'));
}

/** Returns everything still held; each step on its own, so one failing store cannot keep the others. */
async function giveBack(scope: RequestScope, held: Held): Promise<void> {
  const { stores } = scope.ctx;
  const { organizationId } = held;
  await giveBackReservation(scope, held);
  if (held.idempotency) {
    const { scope: idempotencyScope, owner } = held.idempotency;
    held.idempotency = null;
    await stores.idempotency
      .abandon(idempotencyScope, { owner })
      .catch((error: unknown) => scope.report(error, 'idempotency abandon'));
  }
  if (held.slotId !== null) {
    const slotId = held.slotId;
    held.slotId = null;
    await stores.limits
      .releaseSlot({ organizationId, slotId })
      .catch((error: unknown) => scope.report(error, 'concurrency release'));
  }
}
