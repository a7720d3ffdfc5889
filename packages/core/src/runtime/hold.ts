import type { Coverage, ErrorCode, OverallState } from '../contract/enums.js';
import type { StoredResponse } from '../stores/idempotency.js';
import type { QuotaUsage } from '../stores/quota.js';
import type { FinishCheckOutcome, FinishCheckParams } from '../stores/checks.js';
import type { RequestScope } from './context.js';
import { errorReply, type RuntimeError } from './errors.js';
import type { CoreHttpResponse } from './http.js';
import { isLate, lateLimits } from './late-limits.js';
import type { LimitState, Reply } from './response.js';
import { monthOf } from './time.js';

/** What a check decided: its reply, and what that means for the quota, the key and the usage report. */
export interface CheckOutcome {
  reply: Reply;
  /** Bill the reservation (a result with complete coverage); otherwise it is released. */
  bill: boolean;
  /** Store the reply under the Idempotency-Key (a result or a finalized error); otherwise the claim is abandoned. */
  store: boolean;
  /** The usage record's fields. */
  usage: {
    network: string | null;
    overallState: OverallState | null;
    coverage: Coverage | null;
    errorCode: ErrorCode | null;
  };
}

/**
 * Errors finalized for an executing idempotent operation are stored and replayed (spec Errors
 * rule 2). Everything else releases the key: 422 `invalid_expected_amount` (so the corrected
 * body can be sent with the same key), 500 and shutdown (nothing was decided).
 */
const STORED_ERRORS = new Set<RuntimeError['kind']>(['quota_exceeded', 'provider_unavailable', 'request_timeout']);

/** The outcome of answering `error`: nothing billed, stored only when the spec finalizes it. */
export function failure(scope: RequestScope, error: RuntimeError, network: string | null): CheckOutcome {
  const reply = errorReply(scope.requestId, error);
  return {
    reply,
    bill: false,
    store: STORED_ERRORS.has(error.kind),
    usage: { network, overallState: null, coverage: null, errorCode: reply.code },
  };
}

/** What `begin` left held, to be given back by `finish`. */
export interface Held {
  organizationId: string;
  /**
   * When `begin` ran: the check's usage record is dated by it, as its reservation names this
   * instant's month, so a check across midnight counts on the day (and in the month) it began.
   */
  begunAt: Date;
  slotId: string | null;
  reservationId: string | null;
  claim: { key: string; owner: string } | null;
}

/**
 * What one check holds (its concurrency slot, quota reservation and idempotency claim) and the
 * one way to give it all back: `close` turns the check's outcome into one `finish` call (bill or
 * release, store or abandon, free the slot, record usage) and the answer.
 */
export class CheckHold {
  constructor(
    private readonly scope: RequestScope,
    private readonly held: Held,
    private readonly limits: LimitState,
  ) {}

  async close(outcome: CheckOutcome): Promise<CoreHttpResponse> {
    const decided = outcome.bill || (outcome.store && this.held.claim !== null);
    if (!decided) {
      // Nothing to bill or store: the answer stands whatever the store does (a lost usage record
      // is reported; leases free what it keeps), bounded like any settling. A failed finish is given
      // back once more, so one store blip does not hold the slot and the unit for a whole lease.
      const settled = await this.scope.settle('finish', this.scope.ctx.stores.checks.finish(this.#params(outcome)));
      const failed = settled.isErr() && settled.error.kind === 'internal_error';
      return this.#answer(
        outcome.reply,
        settled.isOk() ? settled.value : failed ? await this.#giveBack(outcome) : null,
      );
    }
    // Billing and storing a decided result must not be cut in half: bounded by the settle grace,
    // tried twice when the store fails (a key left unstored after billing would execute again; a
    // second finish after a first that committed changes nothing).
    const params = this.#params(outcome);
    let work = this.scope.ctx.stores.checks.finish(params);
    let settled = await this.scope.settle('finish', work);
    if (settled.isErr() && settled.error.kind === 'internal_error') {
      work = this.scope.ctx.stores.checks.finish(params);
      settled = await this.scope.settle('finish', work);
    }
    if (settled.isOk()) {
      this.#reportUnsettled(outcome, settled.value);
      return this.#answer(outcome.reply, settled.value);
    }
    if (settled.error.kind === 'settle_timeout') return this.#settleLate(work);
    // Give everything back. A result that cannot be billed fails closed (500); a finalized error
    // stands, as nothing depended on storing it. But when nothing was still held, a try committed
    // and only its answer was lost: the result is billed and stored, so it is the answer.
    const fallback = outcome.bill ? failure(this.scope, { kind: 'internal_error' }, outcome.usage.network) : outcome;
    const givenBack = await this.#giveBack(fallback);
    return this.#answer(givenBack?.repeated ? outcome.reply : fallback.reply, givenBack);
  }

  /**
   * A decided result the finish could not bill or store is still the answer (its caller gets it,
   * unbilled), and reported: its lease ended while it ran. When its Idempotency-Key claim is no
   * longer its own (taken over by a host whose clock is more than the lease ahead or by a retry after
   * this check stalled that long, or swept), the store neither stores nor bills it: a key is billed
   * with the result stored under it, once. A repeated finish means the first attempt committed and
   * only its answer was lost.
   */
  #reportUnsettled(outcome: CheckOutcome, finished: FinishCheckOutcome): void {
    if (finished.repeated) return;
    if (outcome.store && this.held.claim !== null && !finished.stored) {
      const lost = 'the Idempotency-Key claim ended before the finish (taken over or swept): not stored, not billed';
      this.scope.report(new Error(lost), 'finish');
    } else if (outcome.bill && !finished.billed) {
      this.scope.report(new Error('the quota reservation expired before its commit: not billed'), 'finish');
    }
  }

  /**
   * The store may still bill and store after the caller got its 504: whatever it decides is what a
   * retry with the same key replays (billed once). If it fails after all, everything is given back
   * and the 504 is what the usage report counts.
   */
  #settleLate(work: Promise<FinishCheckOutcome>): CoreHttpResponse | Promise<CoreHttpResponse> {
    const timedOut = failure(this.scope, { kind: 'request_timeout' }, null);
    work.then(
      () => {},
      () => this.#giveBack({ ...timedOut, store: false }),
    );
    return this.#answer(timedOut.reply, null);
  }

  /** Releases everything held (no bill, the claim abandoned unless `outcome.store`); failures are reported. */
  async #giveBack(outcome: CheckOutcome): Promise<FinishCheckOutcome | null> {
    try {
      return await this.scope.ctx.stores.checks.finish(this.#params({ ...outcome, bill: false }));
    } catch (error) {
      // Leases end on their own: what a failing store keeps is free again by its lease's end.
      this.scope.report(error, 'give back');
      return null;
    }
  }

  #params(outcome: CheckOutcome): FinishCheckParams {
    const { scope, held } = this;
    const now = scope.now();
    const { claim } = held;
    return {
      organizationId: held.organizationId,
      now,
      slotId: held.slotId,
      reservation: held.reservationId === null ? null : { reservationId: held.reservationId, commit: outcome.bill },
      idempotency: claim && {
        key: claim.key,
        owner: claim.owner,
        response: outcome.store ? this.#stored(outcome.reply) : null,
        retainUntil: new Date(now.getTime() + scope.ctx.options.idempotencyRetentionMs),
      },
      usage: {
        organizationId: held.organizationId,
        at: held.begunAt,
        network: outcome.usage.network,
        overallState: outcome.usage.overallState,
        coverage: outcome.usage.coverage,
        latencyMs: scope.elapsedMs(),
        errorCode: outcome.usage.errorCode,
      },
    };
  }

  /**
   * What a replay needs beyond the constant Content-Type: status, body, X-Request-ID and the reply's own
   * headers (Retry-After). X-Request-ID is the body's `request_id` too, but a 0.1.0 host (rolling upgrades
   * start from it) replays the stored headers as they are, so without it its replay would have none.
   */
  #stored(reply: Reply): StoredResponse {
    const headers = { 'X-Request-ID': this.scope.requestId, ...reply.headers };
    // Frozen: a store may keep it as it is, without a copy.
    return Object.freeze({ status: reply.status, headers: Object.freeze(headers), body: reply.body });
  }

  /**
   * The reply with the limit headers, the quota as `finish` left it when it moved. An answer sent
   * after the minute or month `begin` counted in ended shows the current ones (`lateLimits`); only
   * such an answer waits for anything (no promise on the way of every other).
   */
  #answer(reply: Reply, finished: FinishCheckOutcome | null): CoreHttpResponse | Promise<CoreHttpResponse> {
    const { rate, quota } = this.limits;
    const limits =
      finished?.quota && quota
        ? { rate, quota: { limit: quota.limit, usage: finished.quota, periodEnd: quota.periodEnd } }
        : this.limits;
    const at = this.scope.now();
    if (isLate(limits, at)) return this.#answerLate(reply, limits, at);
    return this.scope.respond({ status: reply.status, body: reply.body, headers: reply.headers }, limits);
  }

  async #answerLate(reply: Reply, limits: LimitState, at: Date): Promise<CoreHttpResponse> {
    const late = lateLimits(limits, at, await this.#monthUsage(at));
    return this.scope.respond({ ...reply, headers: { ...late.headers, ...reply.headers } }, late.limits);
  }

  /**
   * The quota of the month `at` is in, read only when the check's own month has ended (its
   * answer crossed the month's edge); null when it has not, or the read fails or is slow: bounded
   * like settling, a late answer leaves its quota headers out rather than wait.
   */
  async #monthUsage(at: Date): Promise<QuotaUsage | null> {
    const { quota } = this.limits;
    if (quota === null || at < quota.periodEnd) return null;
    const period = monthOf(at).key;
    const read = this.scope.ctx.stores.quota.getUsage({ organizationId: this.held.organizationId, period, now: at });
    const settled = await this.scope.settle('quota headers', read);
    return settled.isOk() ? settled.value : null;
  }
}
