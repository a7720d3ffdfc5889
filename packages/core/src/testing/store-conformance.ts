import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ApiKeyRecord, RotateOutcome } from '../stores/api-keys.js';
import { runCheckStoreConformance } from './check-store-conformance.js';
import type { SafetyStores } from '../stores/index.js';
import type { Entitlements, Organization, Plan } from '../stores/organizations.js';
import {
  latencyBucket,
  latencyQuantile,
  LATENCY_BUCKET_BOUNDS_MS,
  summarizeUsageDays,
  type UsageRecord,
} from '../stores/usage.js';
import { runPortalStoreConformance } from './portal-store-conformance.js';
import { runSanctionsListStoreConformance } from './sanctions-lists-conformance.js';

/**
 * What a store implementation must do, as node:test cases: every store package runs this same
 * suite (`runStoreConformance('memory', () => ({ stores: createMemoryStores() }))`).
 *
 * Each case asks the factory for stores and closes them after. Ids, plan codes and keys are
 * random, so a factory may hand out stores over one shared database without emptying it.
 * Time is driven through the `now` arguments only.
 */
export type StoreFactory = () =>
  | Promise<{ stores: SafetyStores; close?: () => Promise<void> }>
  | { stores: SafetyStores; close?: () => Promise<void> };

const T0 = new Date('2026-03-31T23:59:30.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const ENTITLEMENTS: Entitlements = {
  rateLimitPerMinute: 60,
  maxConcurrentRequests: 5,
  monthlyQuota: 100,
  enabledNetworks: ['tron'],
};

function organization(overrides: Partial<Organization> = {}): Organization {
  return {
    id: randomUUID(),
    name: 'Conformance org',
    status: 'active',
    assignment: { kind: 'custom', entitlements: ENTITLEMENTS },
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

function apiKey(organizationId: string, createdAt = T0): ApiKeyRecord {
  const hash = Buffer.from(randomUUID().replaceAll('-', '') + randomUUID().replaceAll('-', ''), 'hex').toString('hex');
  return {
    id: randomUUID(),
    organizationId,
    label: 'label',
    hash,
    prefix: 'tsk_live_abcdefgh',
    createdAt,
    revokedAt: null,
    replacedBy: null,
    lastUsedAt: null,
  };
}

function usageRecord(organizationId: string, overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    organizationId,
    at: T0,
    network: 'tron',
    overallState: 'CLEAR',
    coverage: 'complete',
    billable: true,
    latencyMs: 100,
    errorCode: null,
    ...overrides,
  };
}

export function runStoreConformance(name: string, factory: StoreFactory): void {
  runSanctionsListStoreConformance(name, factory);
  const withStores = (title: string, body: (stores: SafetyStores) => Promise<void>) =>
    test(title, async () => {
      const { stores, close } = await factory();
      try {
        await body(stores);
      } finally {
        await close?.();
      }
    });

  describe(`${name}: store conformance`, () => {
    runCheckStoreConformance(withStores);
    runPortalStoreConformance(withStores);
    describe('organizations and plans', () => {
      withStores('plan versions: put, get, latest, replace, list', async ({ organizations }) => {
        const code = `plan-${randomUUID().slice(0, 8)}`;
        const v1: Plan = { code, version: 1, name: 'Starter', ...ENTITLEMENTS };
        const v2: Plan = { ...v1, version: 2, name: 'Starter 2', monthlyQuota: 500 };
        await organizations.putPlan(v1);
        await organizations.putPlan(v2);
        assert.deepEqual(await organizations.getPlan(code, 1), v1);
        assert.deepEqual(await organizations.latestPlan(code), v2);
        assert.equal(await organizations.getPlan(code, 3), null);
        assert.equal(await organizations.latestPlan(`${code}-missing`), null);
        await organizations.putPlan({ ...v1, name: 'Starter renamed' });
        assert.equal((await organizations.getPlan(code, 1))?.name, 'Starter renamed');
        const listed = (await organizations.listPlans()).filter((p) => p.code === code);
        assert.deepEqual(
          listed.map((p) => p.version),
          [1, 2],
        );
      });

      withStores('organizations: create once, read with the plan, update, upsert', async ({ organizations }) => {
        const code = `plan-${randomUUID().slice(0, 8)}`;
        const plan: Plan = { code, version: 1, name: 'Pro', ...ENTITLEMENTS };
        await organizations.putPlan(plan);
        const org = organization({ assignment: { kind: 'plan', code, version: 1 } });
        assert.equal(await organizations.createOrganization(org), true);
        assert.equal(await organizations.createOrganization({ ...org, name: 'other' }), false);
        const read = await organizations.getOrganization(org.id);
        assert.deepEqual(read, { organization: org, plan });
        assert.equal(await organizations.getOrganization(randomUUID()), null);

        const updated = await organizations.updateOrganization(org.id, { status: 'suspended', updatedAt: at(1000) });
        assert.equal(updated?.status, 'suspended');
        assert.deepEqual(updated?.assignment, org.assignment);
        const custom = { kind: 'custom' as const, entitlements: { ...ENTITLEMENTS, monthlyQuota: 7 } };
        await organizations.updateOrganization(org.id, { assignment: custom, updatedAt: at(2000) });
        const after = await organizations.getOrganization(org.id);
        assert.deepEqual(after?.organization.assignment, custom);
        assert.equal(after?.organization.status, 'suspended');
        assert.equal(after?.plan, null);
        assert.equal(await organizations.updateOrganization(randomUUID(), { status: 'active', updatedAt: T0 }), null);

        await organizations.putOrganization({ ...org, name: 'Renamed', status: 'active' });
        assert.equal((await organizations.getOrganization(org.id))?.organization.name, 'Renamed');
        assert.ok((await organizations.listOrganizations()).some((o) => o.id === org.id));
      });
    });

    describe('api keys', () => {
      withStores('insert, find by hash, unique hash, list oldest first, revoke', async ({ apiKeys }) => {
        const orgId = randomUUID();
        const first = apiKey(orgId, T0);
        const second = apiKey(orgId, at(1000));
        assert.equal(await apiKeys.insertKey(second), true);
        assert.equal(await apiKeys.insertKey(first), true);
        assert.equal(await apiKeys.insertKey({ ...apiKey(orgId), hash: first.hash }), false, 'hash is unique');
        assert.deepEqual(await apiKeys.findKeyByHash(first.hash), first);
        assert.equal(await apiKeys.findKeyByHash('0'.repeat(64)), null);
        assert.deepEqual(
          (await apiKeys.listKeys(orgId)).map((k) => k.id),
          [first.id, second.id],
        );

        assert.equal(
          await apiKeys.revokeKey(randomUUID(), first.id, at(5000)),
          null,
          'another organization cannot revoke it',
        );
        const revoked = await apiKeys.revokeKey(orgId, first.id, at(5000));
        assert.deepEqual(revoked?.revokedAt, at(5000));
        const again = await apiKeys.revokeKey(orgId, first.id, at(9000));
        assert.deepEqual(again?.revokedAt, at(5000), 'revoking twice keeps the first time');
        assert.deepEqual((await apiKeys.findKeyByHash(first.hash))?.revokedAt, at(5000));
      });

      withStores('rotation revokes and replaces atomically, once', async ({ apiKeys }) => {
        const orgId = randomUUID();
        const old = apiKey(orgId);
        await apiKeys.insertKey(old);
        const replacements = Array.from({ length: 10 }, () => apiKey(orgId, at(1000)));
        const outcomes = await Promise.all(replacements.map((r) => apiKeys.rotateKey(orgId, old.id, r, at(1000))));
        const won = outcomes.flatMap((o) => (o.isOk() ? [o.value] : []));
        assert.equal(won.length, 1, 'exactly one concurrent rotation wins');
        assert.ok(outcomes.every((o) => o.isOk() || o.error === 'revoked'));
        const winner = won[0]!;
        assert.deepEqual(winner.revoked.revokedAt, at(1000));
        assert.equal(winner.revoked.replacedBy, winner.created.id);
        assert.equal(winner.created.revokedAt, null);
        const keys = await apiKeys.listKeys(orgId);
        assert.equal(keys.length, 2, 'losers inserted nothing');
        const refusal = (outcome: RotateOutcome) => (outcome.isErr() ? outcome.error : 'rotated');
        assert.equal(refusal(await apiKeys.rotateKey(orgId, randomUUID(), apiKey(orgId), at(2000))), 'not_found');
        assert.equal(
          refusal(await apiKeys.rotateKey(randomUUID(), winner.created.id, apiKey(orgId), at(2000))),
          'not_found',
        );
      });
    });

    describe('idempotency', () => {
      const response = { status: 200, headers: { 'X-Request-ID': 'r-1' }, body: '{"a":"ü"}' };

      withStores('begin, in progress, conflict, complete, replay', async ({ idempotency }) => {
        const scope = { organizationId: randomUUID(), key: 'key-1' };
        const lease = at(60_000);
        assert.deepEqual(
          await idempotency.begin(scope, { fingerprint: 'f1', owner: 'o1', now: T0, leaseExpiresAt: lease }),
          { kind: 'started' },
        );
        assert.deepEqual(
          await idempotency.begin(scope, { fingerprint: 'f1', owner: 'o2', now: at(1), leaseExpiresAt: lease }),
          {
            kind: 'in_progress',
            leaseExpiresAt: lease,
          },
        );
        assert.deepEqual(
          await idempotency.begin(scope, { fingerprint: 'f2', owner: 'o2', now: at(1), leaseExpiresAt: lease }),
          { kind: 'conflict' },
        );
        assert.equal(
          await idempotency.complete(scope, { owner: 'o2', response, now: at(2), retainUntil: at(86_400_000) }),
          false,
          'only the owner completes',
        );
        assert.equal(
          await idempotency.complete(scope, { owner: 'o1', response, now: at(2), retainUntil: at(86_400_000) }),
          true,
        );
        assert.deepEqual(
          await idempotency.begin(scope, { fingerprint: 'f1', owner: 'o3', now: at(3), leaseExpiresAt: lease }),
          { kind: 'completed', response },
        );
        assert.deepEqual(
          await idempotency.begin(scope, { fingerprint: 'f2', owner: 'o3', now: at(3), leaseExpiresAt: lease }),
          { kind: 'conflict' },
        );
        assert.equal(
          await idempotency.complete(scope, { owner: 'o1', response, now: at(4), retainUntil: at(86_400_000) }),
          false,
          'completes once',
        );
      });

      withStores('scoped per organization', async ({ idempotency }) => {
        const key = 'shared-key';
        const params = { fingerprint: 'f', owner: 'o', now: T0, leaseExpiresAt: at(60_000) };
        assert.equal((await idempotency.begin({ organizationId: randomUUID(), key }, params)).kind, 'started');
        assert.equal((await idempotency.begin({ organizationId: randomUUID(), key }, params)).kind, 'started');
      });

      withStores('an expired lease is taken over; the old owner can no longer complete', async ({ idempotency }) => {
        const scope = { organizationId: randomUUID(), key: 'crash' };
        await idempotency.begin(scope, { fingerprint: 'f1', owner: 'crashed', now: T0, leaseExpiresAt: at(10_000) });
        assert.equal(
          (
            await idempotency.begin(scope, {
              fingerprint: 'f1',
              owner: 'x',
              now: at(9_999),
              leaseExpiresAt: at(70_000),
            })
          ).kind,
          'in_progress',
        );
        assert.deepEqual(
          await idempotency.begin(scope, {
            fingerprint: 'f2',
            owner: 'next',
            now: at(10_000),
            leaseExpiresAt: at(70_000),
          }),
          { kind: 'started' },
        );
        assert.equal(
          await idempotency.complete(scope, { owner: 'crashed', response, now: at(11_000), retainUntil: at(99_000) }),
          false,
        );
        assert.equal(
          await idempotency.complete(scope, { owner: 'next', response, now: at(11_000), retainUntil: at(99_000) }),
          true,
        );
      });

      withStores('a late completion by the owner still counts while nobody took over', async ({ idempotency }) => {
        const scope = { organizationId: randomUUID(), key: 'late' };
        await idempotency.begin(scope, { fingerprint: 'f', owner: 'slow', now: T0, leaseExpiresAt: at(10_000) });
        assert.equal(
          await idempotency.complete(scope, { owner: 'slow', response, now: at(20_000), retainUntil: at(99_000) }),
          true,
        );
        assert.equal(
          (
            await idempotency.begin(scope, {
              fingerprint: 'f',
              owner: 'o',
              now: at(21_000),
              leaseExpiresAt: at(80_000),
            })
          ).kind,
          'completed',
        );
      });

      withStores('retention: an expired result lets the key execute again', async ({ idempotency }) => {
        const scope = { organizationId: randomUUID(), key: 'old' };
        await idempotency.begin(scope, { fingerprint: 'f1', owner: 'a', now: T0, leaseExpiresAt: at(60_000) });
        await idempotency.complete(scope, { owner: 'a', response, now: at(1000), retainUntil: at(86_401_000) });
        assert.equal(
          (
            await idempotency.begin(scope, {
              fingerprint: 'f2',
              owner: 'b',
              now: at(86_400_999),
              leaseExpiresAt: at(86_460_000),
            })
          ).kind,
          'conflict',
        );
        assert.deepEqual(
          await idempotency.begin(scope, {
            fingerprint: 'f2',
            owner: 'b',
            now: at(86_401_000),
            leaseExpiresAt: at(86_460_000),
          }),
          { kind: 'started' },
        );
      });

      withStores('abandon frees the key for its owner only', async ({ idempotency }) => {
        const scope = { organizationId: randomUUID(), key: 'fix-me' };
        const begin = (owner: string, fingerprint = 'f1') =>
          idempotency.begin(scope, { fingerprint, owner, now: T0, leaseExpiresAt: at(60_000) });
        await begin('a');
        await idempotency.abandon(scope, { owner: 'b' });
        assert.equal((await begin('b')).kind, 'in_progress');
        await idempotency.abandon(scope, { owner: 'a' });
        assert.equal((await begin('c', 'f2')).kind, 'started', 'a corrected body may use the key');
        await idempotency.complete(scope, { owner: 'c', response, now: T0, retainUntil: at(1000) });
        await idempotency.abandon(scope, { owner: 'c' });
        assert.equal((await begin('d', 'f2')).kind, 'completed', 'abandon never deletes a completed result');
      });

      withStores('concurrent begins: exactly one starts', async ({ idempotency }) => {
        const scope = { organizationId: randomUUID(), key: 'race' };
        const outcomes = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            idempotency.begin(scope, { fingerprint: 'f', owner: `o${i}`, now: T0, leaseExpiresAt: at(60_000) }),
          ),
        );
        assert.equal(outcomes.filter((o) => o.kind === 'started').length, 1);
        assert.equal(outcomes.filter((o) => o.kind === 'in_progress').length, 49);
      });

      withStores('purge removes expired records and keeps live ones', async ({ idempotency }) => {
        const orgId = randomUUID();
        const expired = { organizationId: orgId, key: 'expired' };
        const live = { organizationId: orgId, key: 'live' };
        await idempotency.begin(expired, { fingerprint: 'f', owner: 'a', now: T0, leaseExpiresAt: at(1000) });
        await idempotency.begin(live, { fingerprint: 'f', owner: 'a', now: T0, leaseExpiresAt: at(60_000) });
        await idempotency.complete(live, { owner: 'a', response, now: T0, retainUntil: at(86_400_000) });
        assert.ok((await idempotency.purgeExpired(at(2000))) >= 1);
        assert.equal(
          (await idempotency.begin(live, { fingerprint: 'f', owner: 'b', now: at(3000), leaseExpiresAt: at(60_000) }))
            .kind,
          'completed',
        );
        assert.equal(
          (
            await idempotency.begin(expired, {
              fingerprint: 'g',
              owner: 'b',
              now: at(3000),
              leaseExpiresAt: at(60_000),
            })
          ).kind,
          'started',
        );
      });
    });

    describe('quota', () => {
      const reserveParams = (organizationId: string, limit: number, now = T0, period = '2026-03') => ({
        organizationId,
        period,
        limit,
        reservationId: randomUUID(),
        now,
        expiresAt: new Date(now.getTime() + 60_000),
      });

      withStores('reserve up to the limit; commit bills once; release frees', async ({ quota }) => {
        const orgId = randomUUID();
        const a = reserveParams(orgId, 2);
        const b = reserveParams(orgId, 2);
        assert.deepEqual(await quota.reserve(a), { ok: true, usage: { used: 0, reserved: 1 } });
        assert.deepEqual(await quota.reserve(b), { ok: true, usage: { used: 0, reserved: 2 } });
        assert.deepEqual(await quota.reserve(reserveParams(orgId, 2)), { ok: false, usage: { used: 0, reserved: 2 } });
        assert.deepEqual(await quota.commit({ organizationId: orgId, reservationId: a.reservationId, now: at(1) }), {
          used: 1,
          reserved: 1,
        });
        assert.equal(
          await quota.commit({ organizationId: orgId, reservationId: a.reservationId, now: at(2) }),
          null,
          'commits once',
        );
        assert.equal(
          await quota.release({ organizationId: orgId, reservationId: a.reservationId, now: at(2) }),
          null,
          'a committed unit is not released',
        );
        assert.equal(
          await quota.commit({ organizationId: randomUUID(), reservationId: b.reservationId, now: at(2) }),
          null,
          'another organization cannot commit it',
        );
        assert.deepEqual(await quota.release({ organizationId: orgId, reservationId: b.reservationId, now: at(3) }), {
          used: 1,
          reserved: 0,
        });
        assert.equal(
          await quota.release({ organizationId: orgId, reservationId: b.reservationId, now: at(3) }),
          null,
          'release is idempotent',
        );
        assert.deepEqual(await quota.getUsage({ organizationId: orgId, period: '2026-03', now: at(4) }), {
          used: 1,
          reserved: 0,
        });
        assert.deepEqual(
          await quota.reserve(reserveParams(orgId, 1)),
          { ok: false, usage: { used: 1, reserved: 0 } },
          'a lowered limit below used',
        );
      });

      withStores('concurrent reserves never exceed the limit (500 for 100 units)', async ({ quota }) => {
        const orgId = randomUUID();
        const attempts = Array.from({ length: 500 }, () => reserveParams(orgId, 100));
        const outcomes = await Promise.all(attempts.map((p) => quota.reserve(p)));
        const granted = attempts.filter((_, i) => outcomes[i]!.ok);
        assert.equal(granted.length, 100);
        await Promise.all(
          granted.map((p) => quota.commit({ organizationId: orgId, reservationId: p.reservationId, now: at(1) })),
        );
        assert.deepEqual(await quota.getUsage({ organizationId: orgId, period: '2026-03', now: at(2) }), {
          used: 100,
          reserved: 0,
        });
      });

      withStores('an expired reservation counts as released and cannot be billed', async ({ quota }) => {
        const orgId = randomUUID();
        const crashed = reserveParams(orgId, 1);
        await quota.reserve(crashed);
        assert.equal((await quota.reserve(reserveParams(orgId, 1, at(59_999)))).ok, false);
        assert.deepEqual(await quota.getUsage({ organizationId: orgId, period: '2026-03', now: at(60_000) }), {
          used: 0,
          reserved: 0,
        });
        assert.equal(
          await quota.commit({ organizationId: orgId, reservationId: crashed.reservationId, now: at(60_000) }),
          null,
        );
        const next = reserveParams(orgId, 1, at(60_000));
        assert.equal((await quota.reserve(next)).ok, true);
        assert.ok((await quota.purgeExpired(at(200_000))) >= 1);
        assert.deepEqual(await quota.getUsage({ organizationId: orgId, period: '2026-03', now: at(200_000) }), {
          used: 0,
          reserved: 0,
        });
      });

      withStores('months are separate; a unit is billed to the month it was reserved in', async ({ quota }) => {
        const orgId = randomUUID();
        const march = reserveParams(orgId, 1, T0, '2026-03');
        assert.equal((await quota.reserve(march)).ok, true);
        // Committed after midnight UTC: still March's unit.
        assert.deepEqual(
          await quota.commit({ organizationId: orgId, reservationId: march.reservationId, now: at(31_000) }),
          { used: 1, reserved: 0 },
        );
        assert.equal((await quota.reserve(reserveParams(orgId, 1, at(31_000), '2026-03'))).ok, false);
        assert.deepEqual(await quota.reserve(reserveParams(orgId, 1, at(31_000), '2026-04')), {
          ok: true,
          usage: { used: 0, reserved: 1 },
        });
        assert.deepEqual(await quota.getUsage({ organizationId: orgId, period: '2026-03', now: at(32_000) }), {
          used: 1,
          reserved: 0,
        });
      });
    });

    describe('rate and concurrency limits', () => {
      withStores('a window admits its limit, denies without counting, then rolls over', async ({ limits }) => {
        const organizationId = randomUUID();
        const minute = new Date('2026-03-31T23:59:00.000Z');
        const hit = (windowStart: Date, now: Date) => limits.hitRate({ organizationId, windowStart, limit: 3, now });
        assert.deepEqual(await hit(minute, T0), { allowed: true, count: 1 });
        assert.deepEqual(await hit(minute, T0), { allowed: true, count: 2 });
        assert.deepEqual(await hit(minute, T0), { allowed: true, count: 3 });
        assert.deepEqual(await hit(minute, at(1)), { allowed: false, count: 3 });
        assert.deepEqual(await hit(minute, at(2)), { allowed: false, count: 3 });
        const next = new Date('2026-04-01T00:00:00.000Z');
        assert.deepEqual(await hit(next, at(30_000)), { allowed: true, count: 1 });
        assert.deepEqual(
          await limits.hitRate({ organizationId: randomUUID(), windowStart: next, limit: 3, now: at(30_000) }),
          { allowed: true, count: 1 },
        );
      });

      withStores('concurrent hits admit exactly the limit', async ({ limits }) => {
        const organizationId = randomUUID();
        const windowStart = new Date('2026-03-31T23:59:00.000Z');
        const outcomes = await Promise.all(
          Array.from({ length: 50 }, () => limits.hitRate({ organizationId, windowStart, limit: 10, now: T0 })),
        );
        assert.equal(outcomes.filter((o) => o.allowed).length, 10);
      });

      withStores('slots: limit, release, lease expiry, concurrency', async ({ limits }) => {
        const organizationId = randomUUID();
        const acquire = (slotId: string, now = T0, limit = 2) =>
          limits.acquireSlot({ organizationId, slotId, limit, now, expiresAt: new Date(now.getTime() + 60_000) });
        assert.deepEqual(await acquire('a'), { ok: true, inFlight: 1 });
        assert.deepEqual(await acquire('b'), { ok: true, inFlight: 2 });
        assert.deepEqual(await acquire('c'), { ok: false, inFlight: 2 });
        await limits.releaseSlot({ organizationId, slotId: 'a' });
        await limits.releaseSlot({ organizationId, slotId: 'a' });
        assert.deepEqual(await acquire('c'), { ok: true, inFlight: 2 });
        // b and c were never released (a crash): their leases end at T0 + 60 s.
        assert.equal((await acquire('d', at(59_999))).ok, false);
        assert.deepEqual(await acquire('d', at(60_000)), { ok: true, inFlight: 1 });

        const other = randomUUID();
        const outcomes = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            limits.acquireSlot({ organizationId: other, slotId: `s${i}`, limit: 5, now: T0, expiresAt: at(60_000) }),
          ),
        );
        assert.equal(outcomes.filter((o) => o.ok).length, 5);
        assert.ok((await limits.purgeExpired(at(120_000))) >= 5);
        assert.equal(
          (
            await limits.acquireSlot({
              organizationId: other,
              slotId: 'z',
              limit: 1,
              now: at(120_000),
              expiresAt: at(180_000),
            })
          ).ok,
          true,
        );
      });
    });

    describe('usage records', () => {
      const day = (offsetDays: number) => new Date(Date.parse('2026-03-31T12:00:00.000Z') + offsetDays * 86_400_000);

      withStores('each record counts into its UTC day; a range of days reads one bucket a day', async ({ usage }) => {
        const orgId = randomUUID();
        await usage.recordUsage(usageRecord(orgId, { at: new Date('2026-03-30T23:59:59.999Z'), latencyMs: 1000 }));
        await usage.recordUsage(usageRecord(orgId, { latencyMs: 100 }));
        await usage.recordUsage(
          usageRecord(orgId, {
            at: at(10),
            overallState: 'LIMITED_DATA',
            coverage: 'partial',
            billable: false,
            latencyMs: 200,
          }),
        );
        await usage.recordUsage(
          usageRecord(orgId, {
            at: at(20),
            overallState: null,
            coverage: null,
            billable: false,
            latencyMs: 301,
            errorCode: 'provider_unavailable',
          }),
        );
        await usage.recordUsage(
          usageRecord(orgId, {
            at: at(30),
            network: null,
            overallState: null,
            coverage: null,
            billable: false,
            latencyMs: 2,
            errorCode: 'validation_error',
          }),
        );
        // T0 is 23:59:30 UTC: 30 s later is the next day.
        await usage.recordUsage(usageRecord(orgId, { at: at(30_000) }));
        await usage.recordUsage(usageRecord(randomUUID(), { at: at(5) }));
        const march31 = await usage.readUsageDays({
          organizationId: orgId,
          firstDay: '2026-03-31',
          lastDay: '2026-03-31',
        });
        const histogram = LATENCY_BUCKET_BOUNDS_MS.map(() => 0);
        for (const ms of [100, 200, 301, 2]) histogram[latencyBucket(ms)]!++;
        assert.deepEqual(march31, [
          {
            day: '2026-03-31',
            requests: 4,
            billable: 1,
            limitedData: 1,
            errors: 2,
            latencySumMs: 603,
            latencyCount: 4,
            byNetwork: { tron: 3 },
            byOverallState: { CLEAR: 1, LIMITED_DATA: 1 },
            latencyHistogram: histogram,
          },
        ]);
        const all = await usage.readUsageDays({ organizationId: orgId, firstDay: '2026-03-01', lastDay: '2026-04-30' });
        assert.deepEqual(
          all.map((d) => [d.day, d.requests]),
          [
            ['2026-03-30', 1],
            ['2026-03-31', 4],
            ['2026-04-01', 1],
          ],
          'oldest first, only days with usage',
        );
        assert.deepEqual(summarizeUsageDays(all), {
          requests: 6,
          billable: 3,
          limitedData: 1,
          errors: 2,
          averageLatencyMs: 284,
          byNetwork: { tron: 5 },
          byOverallState: { CLEAR: 3, LIMITED_DATA: 1 },
        });
        assert.deepEqual(
          await usage.readUsageDays({ organizationId: randomUUID(), firstDay: '2026-03-01', lastDay: '2026-04-30' }),
          [],
        );
      });

      withStores('a day holds a latency histogram good for p50 and p95', async ({ usage }) => {
        const orgId = randomUUID();
        const latencies = Array.from({ length: 200 }, (_, i) => 10 + i * 5); // 10 .. 1005 ms
        for (const latencyMs of latencies) await usage.recordUsage(usageRecord(orgId, { at: day(0), latencyMs }));
        const [bucket] = await usage.readUsageDays({
          organizationId: orgId,
          firstDay: '2026-03-31',
          lastDay: '2026-03-31',
        });
        assert.equal(
          bucket!.latencyHistogram.reduce((a, b) => a + b, 0),
          200,
        );
        const p50 = latencyQuantile(bucket!.latencyHistogram, 0.5)!;
        const p95 = latencyQuantile(bucket!.latencyHistogram, 0.95)!;
        assert.ok(Math.abs(p50 - 505) / 505 < 0.15, `p50 ${p50} near 505`);
        assert.ok(Math.abs(p95 - 955) / 955 < 0.15, `p95 ${p95} near 955`);
      });

      withStores('concurrent records of one day all count', async ({ usage }) => {
        const orgId = randomUUID();
        await Promise.all(Array.from({ length: 50 }, () => usage.recordUsage(usageRecord(orgId, { at: day(0) }))));
        const [bucket] = await usage.readUsageDays({
          organizationId: orgId,
          firstDay: '2026-03-31',
          lastDay: '2026-03-31',
        });
        assert.equal(bucket!.requests, 50);
      });

      withStores('retention purge: days before the first kept day, in batches', async ({ usage }) => {
        const orgId = randomUUID();
        for (const offset of [-3, -2, -1, 0]) await usage.recordUsage(usageRecord(orgId, { at: day(offset) }));
        const firstKept = '2026-03-30';
        let purged = 0;
        for (
          let batch = await usage.purgeUsageBefore(firstKept, 1);
          batch > 0;
          batch = await usage.purgeUsageBefore(firstKept, 1)
        ) {
          assert.equal(batch, 1, 'a batch is bounded');
          purged += batch;
        }
        assert.ok(purged >= 2);
        const kept = await usage.readUsageDays({
          organizationId: orgId,
          firstDay: '2026-01-01',
          lastDay: '2026-12-31',
        });
        assert.deepEqual(
          kept.map((d) => d.day),
          ['2026-03-30', '2026-03-31'],
        );
      });
    });
  });
}
