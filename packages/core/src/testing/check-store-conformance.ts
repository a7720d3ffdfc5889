import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import type { BeginCheckOutcome, BeginCheckParams, CheckWork, FinishCheckParams } from '../stores/checks.js';
import type { SafetyStores } from '../stores/index.js';
import { MAX_ENTITLEMENT, type Entitlements, type Organization } from '../stores/organizations.js';
import { runKeyUseConformance } from './key-use-conformance.js';

/**
 * `checks.begin` and `checks.finish`: each step as the per-step stores define it, in the order
 * the runtime relies on, what each stage holds, and the races (quota, one key) through them.
 */
const T0 = new Date('2026-03-31T23:59:30.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const WINDOW = new Date('2026-03-31T23:59:00.000Z');
const LEASE = at(60_000);
const ENTITLEMENTS: Entitlements = {
  rateLimitPerMinute: 1000,
  maxConcurrentRequests: 1000,
  monthlyQuota: 1000,
  enabledNetworks: ['tron'],
};

interface Tenant {
  organizationId: string;
  apiKeyHash: string;
}

async function tenant(
  stores: SafetyStores,
  entitlements: Partial<Entitlements> = {},
  overrides: Partial<Organization> = {},
): Promise<Tenant> {
  const organizationId = randomUUID();
  await stores.organizations.createOrganization({
    id: organizationId,
    name: 'Check store conformance',
    status: 'active',
    assignment: { kind: 'custom', entitlements: { ...ENTITLEMENTS, ...entitlements } },
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  });
  const apiKeyHash = (randomUUID() + randomUUID()).replaceAll('-', '');
  await stores.apiKeys.insertKey({
    id: randomUUID(),
    organizationId,
    label: 'conformance',
    hash: apiKeyHash,
    prefix: 'tsk_live_conform',
    createdAt: T0,
    revokedAt: null,
    replacedBy: null,
    lastUsedAt: null,
  });
  return { organizationId, apiKeyHash };
}

function work(overrides: Partial<CheckWork> = {}, key: string | null = null, fingerprint = 'f1'): CheckWork {
  return {
    network: 'tron',
    idempotency: key === null ? null : { key, fingerprint, owner: randomUUID(), leaseExpiresAt: LEASE },
    quota: { period: '2026-03', reservationId: randomUUID(), expiresAt: LEASE },
    ...overrides,
  };
}

function params(who: Tenant, w: CheckWork | null, overrides: Partial<BeginCheckParams> = {}): BeginCheckParams {
  return {
    credential: { apiKeyHash: who.apiKeyHash },
    now: T0,
    rateWindowStart: WINDOW,
    slot: { slotId: randomUUID(), expiresAt: LEASE },
    work: w,
    ...overrides,
  };
}

const stageOf = (outcome: BeginCheckOutcome) => (outcome.kind === 'admitted' ? outcome.stage : outcome.kind);

/** Gives back everything `params` took, with `overrides` (commit, response, usage). */
function finishing(who: Tenant, p: BeginCheckParams, overrides: Partial<FinishCheckParams> = {}): FinishCheckParams {
  const claim = p.work?.idempotency;
  return {
    organizationId: who.organizationId,
    now: at(1000),
    slotId: p.slot?.slotId ?? null,
    reservation: p.work ? { reservationId: p.work.quota.reservationId, commit: false } : null,
    idempotency: claim ? { key: claim.key, owner: claim.owner, response: null, retainUntil: at(86_400_000) } : null,
    usage: null,
    ...overrides,
  };
}

/** The organization's usage days across the month's edge after T0: [day, requests, billable]. */
async function daysAcrossTheEdge(stores: SafetyStores, organizationId: string) {
  const days = await stores.usage.readUsageDays({ organizationId, firstDay: '2026-03-31', lastDay: '2026-04-01' });
  return days.map((d) => [d.day, d.requests, d.billable]);
}

const RESPONSE = { status: 200, headers: { 'X-Request-ID': 'r-1' }, body: '{"ok":"ü"}' };

/** A test given fresh stores (closed after), as the store conformance suite makes them. */
export type WithStores = (title: string, body: (stores: SafetyStores) => Promise<void>) => void;

export function runCheckStoreConformance(withStores: WithStores): void {
  runKeyUseConformance(withStores);
  describe('checks: begin and finish', () => {
    withStores(
      'Authentication 6: begin authenticates an active key or an organization id; refuses unknown, revoked, suspended, planless',
      async (stores) => {
        const who = await tenant(stores);
        const admitted = await stores.checks.begin(params(who, null, { slot: null }));
        assert.equal(stageOf(admitted), 'admitted');
        assert.ok(admitted.kind === 'admitted');
        assert.equal(admitted.access.organization.id, who.organizationId);
        assert.deepEqual(admitted.entitlements, ENTITLEMENTS);
        assert.deepEqual(admitted.rate, { allowed: true, count: 1 });
        const byId = await stores.checks.begin({
          ...params(who, null, { slot: null }),
          credential: { organizationId: who.organizationId },
        });
        assert.deepEqual(
          byId.kind === 'admitted' && byId.rate,
          { allowed: true, count: 2 },
          'the same organization, the same window',
        );
        assert.equal(
          stageOf(await stores.checks.begin(params({ ...who, apiKeyHash: '0'.repeat(64) }, null))),
          'unauthenticated',
        );
        assert.equal(
          stageOf(await stores.checks.begin({ ...params(who, null), credential: { organizationId: randomUUID() } })),
          'unauthenticated',
        );
        const [key] = await stores.apiKeys.listKeys(who.organizationId);
        await stores.apiKeys.revokeKey(who.organizationId, key!.id, T0);
        assert.equal(stageOf(await stores.checks.begin(params(who, null))), 'unauthenticated');
        const suspended = await tenant(stores, {}, { status: 'suspended' });
        assert.deepEqual(await stores.checks.begin(params(suspended, work())), {
          kind: 'suspended',
          organizationId: suspended.organizationId,
        });
        const planless = await tenant(
          stores,
          {},
          { assignment: { kind: 'plan', code: `missing-${randomUUID()}`, version: 1 } },
        );
        assert.equal(stageOf(await stores.checks.begin(params(planless, work()))), 'no_entitlements');
      },
    );

    withStores('Limits: a plan version supplies the limits', async (stores) => {
      const code = `plan-${randomUUID().slice(0, 8)}`;
      await stores.organizations.putPlan({ code, version: 1, name: 'Tiny', ...ENTITLEMENTS, monthlyQuota: 1 });
      const who = await tenant(stores, {}, { assignment: { kind: 'plan', code, version: 1 } });
      const first = await stores.checks.begin(params(who, work()));
      assert.equal(stageOf(first), 'started');
      assert.ok(first.kind === 'admitted');
      assert.equal(first.access.plan?.name, 'Tiny');
      assert.equal(stageOf(await stores.checks.begin(params(who, work()))), 'quota_exceeded');
    });

    withStores('Limits: the largest limits and plan version a store keeps (MAX_ENTITLEMENT) work', async (stores) => {
      const largest = {
        rateLimitPerMinute: MAX_ENTITLEMENT,
        maxConcurrentRequests: MAX_ENTITLEMENT,
        monthlyQuota: MAX_ENTITLEMENT,
      };
      const custom = await tenant(stores, largest);
      assert.equal(stageOf(await stores.checks.begin(params(custom, work()))), 'started');
      const code = `plan-${randomUUID().slice(0, 8)}`;
      await stores.organizations.putPlan({
        code,
        version: MAX_ENTITLEMENT,
        name: 'Largest',
        ...ENTITLEMENTS,
        ...largest,
      });
      const planned = await tenant(stores, {}, { assignment: { kind: 'plan', code, version: MAX_ENTITLEMENT } });
      const begun = await stores.checks.begin(params(planned, work()));
      assert.ok(begun.kind === 'admitted' && begun.stage === 'started');
      assert.deepEqual(begun.entitlements, { ...ENTITLEMENTS, ...largest });
    });

    withStores('Limits: rate: admits the limit, a refusal is not counted and holds nothing', async (stores) => {
      const who = await tenant(stores, { rateLimitPerMinute: 2, maxConcurrentRequests: 1 });
      const first = params(who, null, { slot: null });
      assert.equal(stageOf(await stores.checks.begin(first)), 'admitted');
      assert.equal(stageOf(await stores.checks.begin(first)), 'admitted');
      const refused = await stores.checks.begin(params(who, work()));
      assert.deepEqual(refused.kind === 'admitted' && [refused.stage, refused.rate], [
        'rate_limited',
        { allowed: false, count: 2 },
      ]);
      const next = await stores.checks.begin(params(who, work(), { rateWindowStart: at(30_000), now: at(30_000) }));
      assert.equal(stageOf(next), 'started', 'no slot or unit was taken by the refusal');
    });

    withStores('Limits: slot: begin takes it, finish frees it; busy when all are taken', async (stores) => {
      const who = await tenant(stores, { maxConcurrentRequests: 1 });
      const first = params(who, work());
      assert.equal(stageOf(await stores.checks.begin(first)), 'started');
      const busy = await stores.checks.begin(params(who, work()));
      assert.deepEqual(busy.kind === 'admitted' && busy.stage === 'slot_busy' && busy.slot, { ok: false, inFlight: 1 });
      await stores.checks.finish(finishing(who, first));
      assert.equal(stageOf(await stores.checks.begin(params(who, work()))), 'started');
    });

    withStores('Errors: an invalid request or a network not enabled holds only its slot', async (stores) => {
      const who = await tenant(stores, { maxConcurrentRequests: 1, monthlyQuota: 1 });
      for (const [w, stage] of [
        [null, 'invalid'],
        [work({ network: 'ethereum' }, 'k'), 'network_not_enabled'],
      ] as const) {
        const p = params(who, w);
        assert.equal(stageOf(await stores.checks.begin(p)), stage);
        assert.equal(stageOf(await stores.checks.begin(params(who, work()))), 'slot_busy', 'the slot is held');
        await stores.checks.finish({ ...finishing(who, p), reservation: null, idempotency: null });
      }
      assert.equal(
        stageOf(await stores.checks.begin(params(who, work(undefined, 'k')))),
        'started',
        'key and unit untouched',
      );
    });

    withStores('Idempotency: started, in progress, stored, replayed with the quota now, conflict', async (stores) => {
      const who = await tenant(stores, { maxConcurrentRequests: 1 });
      const first = params(who, work({}, 'order-1'));
      assert.equal(stageOf(await stores.checks.begin(first)), 'started');
      await stores.checks.finish({ ...finishing(who, first), slotId: null }); // keeps the slot: in progress below
      const claimFirst = params(who, work({}, 'order-2'));
      await stores.checks.finish(finishing(who, first));
      assert.equal(stageOf(await stores.checks.begin(claimFirst)), 'started');
      const again = await stores.checks.begin(params(who, work({}, 'order-2'), { now: at(1) }));
      assert.equal(stageOf(again), 'slot_busy', 'the slot comes before the key');
      await stores.checks.finish({ ...finishing(who, claimFirst), idempotency: null, reservation: null });
      const inProgress = await stores.checks.begin(params(who, work({}, 'order-2'), { now: at(2) }));
      assert.deepEqual(
        inProgress.kind === 'admitted' && inProgress.stage === 'in_progress' && inProgress.leaseExpiresAt,
        LEASE,
      );
      const claim = claimFirst.work!.idempotency!;
      const finished = await stores.checks.finish({
        ...finishing(who, claimFirst),
        slotId: null,
        reservation: { reservationId: claimFirst.work!.quota.reservationId, commit: true },
        idempotency: { key: claim.key, owner: claim.owner, response: RESPONSE, retainUntil: at(86_400_000) },
      });
      assert.deepEqual(finished, { billed: true, quota: { used: 1, reserved: 0 }, stored: true, repeated: false });
      const replay = await stores.checks.begin(params(who, work({}, 'order-2'), { now: at(3) }));
      assert.ok(replay.kind === 'admitted' && replay.stage === 'completed');
      assert.deepEqual(replay.response, RESPONSE);
      assert.deepEqual(replay.quota, { used: 1, reserved: 0 });
      assert.equal(
        stageOf(await stores.checks.begin(params(who, work({}, 'order-3')))),
        'started',
        'the replay gave its slot back',
      );
      const conflict = params(who, work({}, 'order-2', 'f2'));
      assert.equal(stageOf(await stores.checks.begin({ ...conflict, slot: null })), 'admitted');
    });

    withStores(
      'Quota reservation: finish: a complete result bills once; a release bills nothing; both record usage',
      async (stores) => {
        const who = await tenant(stores, { monthlyQuota: 2 });
        const usage = {
          organizationId: who.organizationId,
          at: at(1000),
          network: 'tron',
          overallState: 'CLEAR' as const,
          coverage: 'complete' as const,
          latencyMs: 40,
          errorCode: null,
        };
        const billedOne = params(who, work());
        assert.equal(stageOf(await stores.checks.begin(billedOne)), 'started');
        const commit = finishing(who, billedOne, {
          reservation: { reservationId: billedOne.work!.quota.reservationId, commit: true },
          usage,
        });
        assert.deepEqual(await stores.checks.finish(commit), {
          billed: true,
          quota: { used: 1, reserved: 0 },
          stored: false,
          repeated: false,
        });
        assert.deepEqual(
          await stores.checks.finish(commit),
          { billed: false, quota: null, stored: false, repeated: true },
          'never twice: a finish retried after its answer was lost',
        );
        const released = params(who, work());
        const begun = await stores.checks.begin(released);
        assert.deepEqual(begun.kind === 'admitted' && begun.stage === 'started' && begun.quota, {
          used: 1,
          reserved: 1,
        });
        assert.deepEqual(
          await stores.checks.finish(
            finishing(who, released, { usage: { ...usage, overallState: 'LIMITED_DATA', coverage: 'partial' } }),
          ),
          {
            billed: false,
            quota: { used: 1, reserved: 0 },
            stored: false,
            repeated: false,
          },
        );
        const [day] = await stores.usage.readUsageDays({
          organizationId: who.organizationId,
          firstDay: '2026-03-31',
          lastDay: '2026-03-31',
        });
        assert.equal(day?.requests, 2, 'the repeated finish recorded nothing');
        assert.equal(day?.billable, 1, 'billable = what finish billed');
        assert.equal(day?.limitedData, 1);
      },
    );

    withStores(
      'Usage: a check finished after its leases ended, before any sweep, is counted once, not as repeated',
      async (stores) => {
        const who = await tenant(stores);
        const checked = params(who, work());
        const invalid = params(who, null);
        assert.equal(stageOf(await stores.checks.begin(checked)), 'started');
        assert.equal(stageOf(await stores.checks.begin(invalid)), 'invalid');
        // Another check of the organization begins after both leases ended; no sweep runs.
        const late = at(61_000);
        const next = { now: late, rateWindowStart: new Date('2026-04-01T00:00:00Z') };
        const later = params(who, null, { ...next, slot: { slotId: randomUUID(), expiresAt: at(121_000) } });
        assert.equal(stageOf(await stores.checks.begin(later)), 'invalid');
        const usage = {
          organizationId: who.organizationId,
          at: T0,
          network: 'tron',
          overallState: null,
          coverage: null,
          latencyMs: 61_000,
          errorCode: 'request_timeout' as const,
        };
        const commit = { reservationId: checked.work!.quota.reservationId, commit: true };
        assert.deepEqual(
          await stores.checks.finish(finishing(who, checked, { now: late, reservation: commit, usage })),
          { billed: false, quota: null, stored: false, repeated: false },
          'the reservation expired: not billed, but counted',
        );
        assert.deepEqual(await stores.checks.finish(finishing(who, invalid, { now: late, reservation: null, usage })), {
          billed: false,
          quota: null,
          stored: false,
          repeated: false,
        });
        assert.deepEqual(await daysAcrossTheEdge(stores, who.organizationId), [['2026-03-31', 2, 0]]);
      },
    );

    withStores(
      "Quota period: a finish past the month's end bills the reservation's month and counts usage on the day of `usage.at`",
      async (stores) => {
        const who = await tenant(stores);
        const p = params(who, work());
        assert.equal(stageOf(await stores.checks.begin(p)), 'started');
        // Begun at 23:59:30 on March 31st, finished at 00:00:05 on April 1st: the runtime dates the
        // usage by the begin, as the reservation names March.
        const usage = {
          organizationId: who.organizationId,
          at: T0,
          network: 'tron',
          overallState: 'CLEAR' as const,
          coverage: 'complete' as const,
          latencyMs: 35_000,
          errorCode: null,
        };
        const finished = await stores.checks.finish(
          finishing(who, p, {
            now: at(35_000),
            reservation: { reservationId: p.work!.quota.reservationId, commit: true },
            usage,
          }),
        );
        assert.deepEqual(finished, { billed: true, quota: { used: 1, reserved: 0 }, stored: false, repeated: false });
        const { organizationId } = who;
        const april = await stores.quota.getUsage({ organizationId, period: '2026-04', now: at(35_000) });
        assert.deepEqual(april, { used: 0, reserved: 0 });
        assert.deepEqual(await daysAcrossTheEdge(stores, organizationId), [['2026-03-31', 1, 1]]);
      },
    );

    withStores(
      'Quota reservation: finish: a repeat after an abandon changes nothing; a finish holding nothing always records',
      async (stores) => {
        const who = await tenant(stores);
        const usage = {
          organizationId: who.organizationId,
          at: at(1000),
          network: 'tron',
          overallState: null,
          coverage: null,
          latencyMs: 5,
          errorCode: 'invalid_expected_amount' as const,
        };
        const p = params(who, work({}, 'abandoned'));
        assert.equal(stageOf(await stores.checks.begin(p)), 'started');
        const abandon = finishing(who, p, { usage });
        assert.equal((await stores.checks.finish(abandon)).repeated, false);
        assert.equal(
          (await stores.checks.finish(abandon)).repeated,
          true,
          'claim, reservation and slot already given back',
        );
        const bare = { ...abandon, slotId: null, reservation: null, idempotency: null };
        assert.equal((await stores.checks.finish(bare)).repeated, false, 'nothing to tell a repeat by');
        const [day] = await stores.usage.readUsageDays({
          organizationId: who.organizationId,
          firstDay: '2026-03-31',
          lastDay: '2026-03-31',
        });
        assert.equal(day?.requests, 2);
        assert.equal(day?.errors, 2);
      },
    );

    withStores(
      'Errors 2: quota exceeded holds the slot and the claim; finish stores the refusal under the key',
      async (stores) => {
        const who = await tenant(stores, { monthlyQuota: 0, maxConcurrentRequests: 1 });
        const p = params(who, work({}, 'k-429'));
        const refused = await stores.checks.begin(p);
        assert.deepEqual(refused.kind === 'admitted' && [refused.stage, 'quota' in refused && refused.quota], [
          'quota_exceeded',
          { used: 0, reserved: 0 },
        ]);
        assert.equal(stageOf(await stores.checks.begin(params(who, work()))), 'slot_busy');
        const claim = p.work!.idempotency!;
        const stored = await stores.checks.finish({
          ...finishing(who, p),
          reservation: null,
          idempotency: {
            key: claim.key,
            owner: claim.owner,
            response: { ...RESPONSE, status: 429 },
            retainUntil: at(86_400_000),
          },
        });
        assert.deepEqual(stored, { billed: false, quota: null, stored: true, repeated: false });
        const replay = await stores.checks.begin(params(who, work({}, 'k-429')));
        assert.equal(replay.kind === 'admitted' && replay.stage === 'completed' && replay.response.status, 429);
      },
    );

    withStores(
      'Quota reservation: finish after the leases ended: nothing billed, the claim taken over is not overwritten',
      async (stores) => {
        const who = await tenant(stores);
        const p = params(who, work({}, 'late'));
        await stores.checks.begin(p);
        const next = params(who, work({}, 'late'), { now: LEASE });
        assert.equal(stageOf(await stores.checks.begin(next)), 'started', 'the lease ended: taken over');
        const claim = p.work!.idempotency!;
        const { billed, quota, stored } = await stores.checks.finish({
          ...finishing(who, p),
          now: LEASE,
          reservation: { reservationId: p.work!.quota.reservationId, commit: true },
          idempotency: { key: claim.key, owner: claim.owner, response: RESPONSE, retainUntil: at(86_400_000) },
        });
        // `repeated` depends on whether the ended leases were reclaimed yet: not asserted.
        assert.deepEqual({ billed, quota, stored }, { billed: false, quota: null, stored: false });
      },
    );

    withStores(
      'Idempotency: a finish whose claim was taken over bills nothing and stores nothing: one key, one unit across the month edge',
      async (stores) => {
        // Host A begins at T0 (March 31st, 23:59:30) by its clock; host B's clock runs more than the
        // lease ahead (April 1st), so B takes the key over and reserves in April while A still runs.
        // Both finish with a complete result, A by its own clock, its March reservation still live.
        for (const staleFirst of [true, false]) {
          const who = await tenant(stores);
          const a = params(who, work({}, 'skewed'));
          const bNow = at(61_000);
          const bLease = at(121_000);
          const b = params(
            who,
            work({
              idempotency: { key: 'skewed', fingerprint: 'f1', owner: randomUUID(), leaseExpiresAt: bLease },
              quota: { period: '2026-04', reservationId: randomUUID(), expiresAt: bLease },
            }),
            {
              now: bNow,
              rateWindowStart: new Date('2026-04-01T00:00:00.000Z'),
              slot: { slotId: randomUUID(), expiresAt: bLease },
            },
          );
          assert.equal(stageOf(await stores.checks.begin(a)), 'started');
          assert.equal(stageOf(await stores.checks.begin(b)), 'started', 'by B’s clock the claim ended');
          const complete = (p: BeginCheckParams, now: Date, body: string) => {
            const claim = p.work!.idempotency!;
            return stores.checks.finish(
              finishing(who, p, {
                now,
                reservation: { reservationId: p.work!.quota.reservationId, commit: true },
                idempotency: { ...claim, response: { ...RESPONSE, body }, retainUntil: at(86_400_000) },
                usage: {
                  organizationId: who.organizationId,
                  at: p.now,
                  network: 'tron',
                  overallState: 'CLEAR',
                  coverage: 'complete',
                  latencyMs: 10,
                  errorCode: null,
                },
              }),
            );
          };
          const stale = () => complete(a, at(1000), '{"host":"A"}');
          const owner = () => complete(b, at(62_000), '{"host":"B"}');
          const [staleOutcome, ownerOutcome] = staleFirst
            ? [await stale(), await owner()]
            : await owner().then(async (o) => [await stale(), o]);
          assert.deepEqual(
            staleOutcome,
            { billed: false, quota: { used: 0, reserved: 0 }, stored: false, repeated: false },
            `the stale finisher releases its unit (${staleFirst ? 'before' : 'after'} the owner's finish)`,
          );
          assert.deepEqual(ownerOutcome, {
            billed: true,
            quota: { used: 1, reserved: 0 },
            stored: true,
            repeated: false,
          });
          const { organizationId } = who;
          const usage = (period: string, now: Date) => stores.quota.getUsage({ organizationId, period, now });
          assert.deepEqual(await usage('2026-03', at(1000)), { used: 0, reserved: 0 }, 'March: nothing billed');
          assert.deepEqual(await usage('2026-04', at(62_000)), { used: 1, reserved: 0 });
          assert.deepEqual(
            await daysAcrossTheEdge(stores, organizationId),
            [
              ['2026-03-31', 1, 0],
              ['2026-04-01', 1, 1],
            ],
            'both checks counted, one billed',
          );
          const replay = await stores.checks.begin(params(who, work({}, 'skewed'), { now: at(63_000) }));
          assert.equal(
            replay.kind === 'admitted' && replay.stage === 'completed' && replay.response.body,
            '{"host":"B"}',
            'the new owner’s result is the one stored',
          );
        }
      },
    );

    withStores('Idempotency: abandoning the claim frees the key for a corrected body', async (stores) => {
      const who = await tenant(stores);
      const p = params(who, work({}, 'fix'));
      await stores.checks.begin(p);
      await stores.checks.finish(finishing(who, p));
      assert.equal(stageOf(await stores.checks.begin(params(who, work({}, 'fix', 'f2')))), 'started');
    });

    withStores(
      'Limits: concurrent begins: 300 checks for 100 units start exactly 100; one key starts once',
      async (stores) => {
        const who = await tenant(stores, { monthlyQuota: 100 });
        const all = Array.from({ length: 300 }, () => params(who, work()));
        const outcomes = await Promise.all(all.map((p) => stores.checks.begin(p)));
        const started = all.filter((_, i) => stageOf(outcomes[i]!) === 'started');
        assert.equal(started.length, 100);
        assert.ok(outcomes.every((o) => ['started', 'quota_exceeded'].includes(stageOf(o))));
        const finished = await Promise.all(
          started.map((p) =>
            stores.checks.finish(
              finishing(who, p, { reservation: { reservationId: p.work!.quota.reservationId, commit: true } }),
            ),
          ),
        );
        assert.equal(finished.filter((f) => f.billed).length, 100);
        assert.deepEqual(
          await stores.quota.getUsage({ organizationId: who.organizationId, period: '2026-03', now: at(2000) }),
          { used: 100, reserved: 0 },
        );
        const keyed = await Promise.all(
          Array.from({ length: 50 }, () => stores.checks.begin(params(who, work({}, 'race')))),
        );
        assert.equal(
          keyed.filter((o) => stageOf(o) === 'started').length,
          0,
          'the quota is used up: the one claim is refused',
        );
        const other = await tenant(stores);
        const race = await Promise.all(
          Array.from({ length: 50 }, () => stores.checks.begin(params(other, work({}, 'race')))),
        );
        assert.equal(race.filter((o) => stageOf(o) === 'started').length, 1);
        assert.equal(race.filter((o) => stageOf(o) === 'in_progress').length, 49);
      },
    );
  });
}
