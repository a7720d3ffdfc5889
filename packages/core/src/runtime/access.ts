import { err, ok, type Result } from 'neverthrow';
import type { BeginCheckOutcome, BeginCheckParams, CheckCredential } from '../stores/checks.js';
import type { Entitlements, OrganizationAccess } from '../stores/organizations.js';
import type { RuntimeError } from './errors.js';
import { hashApiKey, MAX_API_KEY_LENGTH } from './keys.js';
import type { RequestScope } from './context.js';
import type { LimitState } from './response.js';
import { minuteOf, secondsUntil } from './time.js';

export { entitlementsOf } from '../stores/organizations.js';

/**
 * The credential an `X-API-Key` header carries: its hash, or null when the value cannot be a key
 * (missing, empty, over the longest key), which is answered 401 without asking a store. Another
 * entry point (a signed-in portal member) passes `{ organizationId }` to `begin` instead.
 */
export function apiKeyCredential(header: string | string[] | undefined): CheckCredential | null {
  if (typeof header !== 'string' || header.length === 0 || header.length > MAX_API_KEY_LENGTH) return null;
  return { apiKeyHash: hashApiKey(header) };
}

/** An authenticated, active organization within its request rate, and the limit headers it earned. */
export type Admission = Extract<BeginCheckOutcome, { kind: 'admitted' }>;

/** The rate window `begin` used: the one containing `now`. */
export function rateWindowOf(now: Date): Pick<BeginCheckParams, 'now' | 'rateWindowStart'> {
  return { now, rateWindowStart: minuteOf(now).start };
}

/** The X-RateLimit-* state of an admitted request (denied ones too: they show the full window). */
export function rateState(entitlements: Entitlements, admission: Admission, now: Date): LimitState['rate'] {
  return {
    limit: entitlements.rateLimitPerMinute,
    count: admission.rate.count,
    windowEnd: minuteOf(now).end,
    now,
  };
}

/**
 * The answers both endpoints give alike once `begin` answered: an unknown key, a suspended
 * organization, a missing plan version (a data error: reported, 500) and the rate limit (429 with
 * its headers). Anything else is admitted.
 */
export function admitted(
  scope: RequestScope,
  outcome: BeginCheckOutcome,
  now: Date,
): Result<Admission & { limits: LimitState }, { error: RuntimeError; limits: LimitState | null }> {
  switch (outcome.kind) {
    case 'unauthenticated':
      return err({ error: { kind: 'invalid_api_key' }, limits: null });
    case 'suspended':
      return err({ error: { kind: 'tenant_suspended' }, limits: null });
    case 'no_entitlements':
      scope.report(new Error(noPlan(outcome.access)), 'entitlements');
      return err({ error: { kind: 'internal_error' }, limits: null });
    case 'admitted': {
      const limits: LimitState = { rate: rateState(outcome.entitlements, outcome, now), quota: null };
      // `limits` first: a spread followed by a new property costs a µs here (V8 makes a map each time).
      if (outcome.stage !== 'rate_limited') return ok({ limits, ...outcome });
      const retryAfterSeconds = secondsUntil(minuteOf(now).end, now);
      return err({ error: { kind: 'rate_limit_exceeded', retryAfterSeconds }, limits });
    }
  }
}

const noPlan = (access: OrganizationAccess) =>
  `organization ${access.organization.id} has no plan version ${JSON.stringify(access.organization.assignment)}`;
