import type {
  BeginCheckOutcome,
  BeginCheckParams,
  BeginStage,
  CheckStore,
  FinishCheckOutcome,
  FinishCheckParams,
} from '@tron-safety/core';
import { entitlementsOf, utcDay } from '@tron-safety/core/internal';
import * as t from 'io-ts';
import type pg from 'pg';
import { claimOutcome } from './idempotency.js';
import { accessOf, OrganizationAccessRow } from './organizations.js';
import { decodeRow, PgDate } from './rows.js';

const Stage = t.keyof({
  unauthenticated: null,
  suspended: null,
  no_entitlements: null,
  rate_limited: null,
  admitted: null,
  slot_busy: null,
  invalid: null,
  network_not_enabled: null,
  conflict: null,
  in_progress: null,
  completed: null,
  quota_exceeded: null,
  started: null,
});
const Int = t.union([t.number, t.null]);
const BeginRow = t.type({
  stage: Stage,
  rate_count: Int,
  in_flight: Int,
  lease_expires_at: t.union([PgDate, t.null]),
  response_status: Int,
  response_headers: t.union([t.record(t.string, t.string), t.null]),
  response_body: t.union([t.string, t.null]),
  quota_used: Int,
  quota_reserved: Int,
});
const FinishRow = t.type({
  billed: t.boolean,
  quota_live: t.union([t.boolean, t.null]),
  quota_used: Int,
  quota_reserved: Int,
  stored: t.boolean,
  repeated: t.boolean,
});

/**
 * begin_check_record and finish_check_record (migration 010; finish fenced on the key's claim by 013),
 * each read as one json column: node-postgres then describes and parses one field instead of 24, and the
 * row decodes as the same object. begin_check_record also sets the API key's last use when it is due
 * (p_touch_key).
 */
const BEGIN =
  'SELECT row_to_json(begin_check_record($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, true)) AS r';
const FINISH =
  'SELECT row_to_json(finish_check_record($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)) AS r';
/** The one column's value: the function's record as an object, timestamps as ISO text. */
const recordOf = (rows: Array<{ r: unknown }>) => (rows.length ? [rows[0]!.r] : []);
/** A timestamptz parameter as ISO text: node-postgres formats a Date field by field, in local time. */
const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

/**
 * Begin and finish as one call each of the functions of migrations 004 and 010 (a prepared statement
 * per connection): one round trip, one transaction, the same steps as the per-step stores.
 */
export class PostgresCheckStore implements CheckStore {
  constructor(private readonly pool: pg.Pool) {}

  async begin(params: BeginCheckParams): Promise<BeginCheckOutcome> {
    const { credential, work } = params;
    const { rows } = await this.pool.query({
      name: 'begin_check_record',
      text: BEGIN,
      values: [
        'apiKeyHash' in credential ? credential.apiKeyHash : null,
        'organizationId' in credential ? credential.organizationId : null,
        iso(params.now),
        iso(params.rateWindowStart),
        params.slot?.slotId ?? null,
        iso(params.slot?.expiresAt),
        work?.network ?? null,
        work?.idempotency?.key ?? null,
        work?.idempotency?.fingerprint ?? null,
        work?.idempotency?.owner ?? null,
        iso(work?.idempotency?.leaseExpiresAt),
        work?.quota.period ?? null,
        work?.quota.reservationId ?? null,
        iso(work?.quota.expiresAt),
      ],
    });
    const record = recordOf(rows);
    const row = decodeRow(BeginRow, record, 'begin_check_record');
    if (!row) throw new Error('begin_check_record returned no row');
    if (row.stage === 'unauthenticated') return { kind: 'unauthenticated' };
    const access = accessOf(decodeRow(OrganizationAccessRow, record, 'organizations')!);
    if (row.stage === 'suspended') return { kind: 'suspended', organizationId: access.organization.id };
    const entitlements = entitlementsOf(access);
    if (row.stage === 'no_entitlements' || !entitlements) return { kind: 'no_entitlements', access };
    const rate = { allowed: row.stage !== 'rate_limited', count: row.rate_count ?? 0 };
    return { kind: 'admitted', access, entitlements, rate, ...stageOf(row) };
  }

  async finish(params: FinishCheckParams): Promise<FinishCheckOutcome> {
    const { idempotency, reservation, usage } = params;
    const response = idempotency?.response ?? null;
    const { rows } = await this.pool.query({
      name: 'finish_check_record',
      text: FINISH,
      values: [
        params.organizationId,
        iso(params.now),
        params.slotId,
        reservation?.reservationId ?? null,
        reservation?.commit ?? false,
        idempotency?.key ?? null,
        idempotency?.owner ?? null,
        response !== null,
        iso(idempotency?.retainUntil),
        response?.status ?? null,
        response ? JSON.stringify(response.headers) : null,
        response?.body ?? null,
        usage ? utcDay(usage.at) : null,
        usage?.network ?? null,
        usage?.overallState ?? null,
        usage ? usage.errorCode !== null : null,
        usage ? Math.round(usage.latencyMs) : null,
      ],
    });
    const row = decodeRow(FinishRow, recordOf(rows), 'finish_check_record');
    if (!row) throw new Error('finish_check_record returned no row');
    const quota =
      row.quota_live && row.quota_used !== null && row.quota_reserved !== null
        ? { used: row.quota_used, reserved: row.quota_reserved }
        : null;
    return { billed: row.billed, quota, stored: row.stored, repeated: row.repeated };
  }
}

function stageOf(row: t.TypeOf<typeof BeginRow>): BeginStage {
  const quota = { used: row.quota_used ?? 0, reserved: row.quota_reserved ?? 0 };
  switch (row.stage) {
    case 'slot_busy':
      return { stage: 'slot_busy', slot: { ok: false, inFlight: row.in_flight ?? 0 } };
    case 'in_progress':
    case 'completed': {
      const claim = claimOutcome({ ...row, kind: row.stage });
      return claim.kind === 'completed'
        ? { stage: 'completed', response: claim.response, quota }
        : { stage: 'in_progress', leaseExpiresAt: (claim as { leaseExpiresAt: Date }).leaseExpiresAt };
    }
    case 'quota_exceeded':
    case 'started':
      return { stage: row.stage, quota };
    case 'rate_limited':
    case 'admitted':
    case 'invalid':
    case 'network_not_enabled':
    case 'conflict':
      return { stage: row.stage };
    default:
      throw new Error(`begin_check stage ${row.stage} after admission`);
  }
}
