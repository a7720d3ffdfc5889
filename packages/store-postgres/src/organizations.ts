import type {
  EntitlementAssignment,
  Entitlements,
  Organization,
  OrganizationAccess,
  OrganizationStore,
  OrganizationUpdate,
  Plan,
} from '@tron-safety/core';
import * as t from 'io-ts';
import type pg from 'pg';
import { decodeRow, decodeRows, PgDate } from './rows.js';

const PlanRow = t.type({
  code: t.string,
  version: t.number,
  name: t.string,
  rate_limit_per_minute: t.number,
  max_concurrent_requests: t.number,
  monthly_quota: t.number,
  enabled_networks: t.array(t.string),
});

const EntitlementsJson = t.type({
  rateLimitPerMinute: t.number,
  maxConcurrentRequests: t.number,
  monthlyQuota: t.number,
  enabledNetworks: t.array(t.string),
});

const OrganizationRow = t.type({
  id: t.string,
  name: t.string,
  status: t.keyof({ active: null, suspended: null }),
  plan_code: t.union([t.string, t.null]),
  plan_version: t.union([t.number, t.null]),
  custom_entitlements: t.union([EntitlementsJson, t.null]),
  created_at: PgDate,
  updated_at: PgDate,
});

/**
 * The organization row with its plan's columns from a LEFT JOIN (null when there is none). One flat
 * type rather than an intersection: it is decoded on every check (begin_check_record).
 */
export const OrganizationAccessRow = t.type({
  ...OrganizationRow.props,
  p_code: t.union([t.string, t.null]),
  p_version: t.union([t.number, t.null]),
  p_name: t.union([t.string, t.null]),
  p_rate_limit_per_minute: t.union([t.number, t.null]),
  p_max_concurrent_requests: t.union([t.number, t.null]),
  p_monthly_quota: t.union([t.number, t.null]),
  p_enabled_networks: t.union([t.array(t.string), t.null]),
});

const PLAN_COLUMNS =
  'code, version, name, rate_limit_per_minute, max_concurrent_requests, monthly_quota, enabled_networks';
const ORGANIZATION_COLUMNS = 'id, name, status, plan_code, plan_version, custom_entitlements, created_at, updated_at';

export class PostgresOrganizationStore implements OrganizationStore {
  constructor(private readonly pool: pg.Pool) {}

  async putPlan(plan: Plan): Promise<void> {
    await this.pool.query(
      `INSERT INTO plans (${PLAN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (code, version) DO UPDATE SET name = EXCLUDED.name,
         rate_limit_per_minute = EXCLUDED.rate_limit_per_minute,
         max_concurrent_requests = EXCLUDED.max_concurrent_requests,
         monthly_quota = EXCLUDED.monthly_quota, enabled_networks = EXCLUDED.enabled_networks`,
      [
        plan.code,
        plan.version,
        plan.name,
        plan.rateLimitPerMinute,
        plan.maxConcurrentRequests,
        plan.monthlyQuota,
        plan.enabledNetworks,
      ],
    );
  }

  async getPlan(code: string, version: number): Promise<Plan | null> {
    const { rows } = await this.pool.query(`SELECT ${PLAN_COLUMNS} FROM plans WHERE code = $1 AND version = $2`, [
      code,
      version,
    ]);
    const row = decodeRow(PlanRow, rows, 'plans');
    return row ? toPlan(row) : null;
  }

  async latestPlan(code: string): Promise<Plan | null> {
    const { rows } = await this.pool.query(
      `SELECT ${PLAN_COLUMNS} FROM plans WHERE code = $1 ORDER BY version DESC LIMIT 1`,
      [code],
    );
    const row = decodeRow(PlanRow, rows, 'plans');
    return row ? toPlan(row) : null;
  }

  async listPlans(): Promise<Plan[]> {
    // COLLATE "C": code point order, the same in every database whatever its locale.
    const { rows } = await this.pool.query(`SELECT ${PLAN_COLUMNS} FROM plans ORDER BY code COLLATE "C", version`);
    return decodeRows(PlanRow, rows, 'plans').map(toPlan);
  }

  async createOrganization(organization: Organization): Promise<boolean> {
    const result = await this.pool.query(
      `INSERT INTO organizations (${ORGANIZATION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO NOTHING`,
      organizationParams(organization),
    );
    return result.rowCount === 1;
  }

  async putOrganization(organization: Organization): Promise<void> {
    await this.pool.query(
      `INSERT INTO organizations (${ORGANIZATION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, status = EXCLUDED.status,
         plan_code = EXCLUDED.plan_code, plan_version = EXCLUDED.plan_version,
         custom_entitlements = EXCLUDED.custom_entitlements,
         created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at`,
      organizationParams(organization),
    );
  }

  async getOrganization(id: string): Promise<OrganizationAccess | null> {
    const { rows } = await this.pool.query(
      `SELECT o.id, o.name, o.status, o.plan_code, o.plan_version, o.custom_entitlements, o.created_at, o.updated_at,
              p.code AS p_code, p.version AS p_version, p.name AS p_name,
              p.rate_limit_per_minute AS p_rate_limit_per_minute,
              p.max_concurrent_requests AS p_max_concurrent_requests,
              p.monthly_quota AS p_monthly_quota, p.enabled_networks AS p_enabled_networks
         FROM organizations o
         LEFT JOIN plans p ON p.code = o.plan_code AND p.version = o.plan_version
        WHERE o.id = $1`,
      [id],
    );
    const row = decodeRow(OrganizationAccessRow, rows, 'organizations');
    return row ? accessOf(row) : null;
  }

  async listOrganizations(): Promise<Organization[]> {
    const { rows } = await this.pool.query(
      `SELECT ${ORGANIZATION_COLUMNS} FROM organizations ORDER BY created_at, id COLLATE "C"`,
    );
    return decodeRows(OrganizationRow, rows, 'organizations').map(toOrganization);
  }

  async updateOrganization(id: string, update: OrganizationUpdate): Promise<Organization | null> {
    const assignment = update.assignment ? assignmentColumns(update.assignment) : null;
    const { rows } = await this.pool.query(
      `UPDATE organizations SET
         status = COALESCE($2, status),
         plan_code = CASE WHEN $3::boolean THEN $4 ELSE plan_code END,
         plan_version = CASE WHEN $3::boolean THEN $5::integer ELSE plan_version END,
         custom_entitlements = CASE WHEN $3::boolean THEN $6::jsonb ELSE custom_entitlements END,
         updated_at = $7
       WHERE id = $1
       RETURNING ${ORGANIZATION_COLUMNS}`,
      [id, update.status ?? null, assignment !== null, ...(assignment ?? [null, null, null]), update.updatedAt],
    );
    const row = decodeRow(OrganizationRow, rows, 'organizations');
    return row ? toOrganization(row) : null;
  }
}

/** The organization and its plan from a row of the organization joined with its plan's `p_*` columns. */
export function accessOf(row: t.TypeOf<typeof OrganizationAccessRow>): OrganizationAccess {
  const plan =
    row.p_code !== null &&
    row.p_version !== null &&
    row.p_name !== null &&
    row.p_rate_limit_per_minute !== null &&
    row.p_max_concurrent_requests !== null &&
    row.p_monthly_quota !== null &&
    row.p_enabled_networks !== null
      ? toPlan({
          code: row.p_code,
          version: row.p_version,
          name: row.p_name,
          rate_limit_per_minute: row.p_rate_limit_per_minute,
          max_concurrent_requests: row.p_max_concurrent_requests,
          monthly_quota: row.p_monthly_quota,
          enabled_networks: row.p_enabled_networks,
        })
      : null;
  return { organization: toOrganization(row), plan };
}

function toPlan(row: t.TypeOf<typeof PlanRow>): Plan {
  return {
    code: row.code,
    version: row.version,
    name: row.name,
    rateLimitPerMinute: row.rate_limit_per_minute,
    maxConcurrentRequests: row.max_concurrent_requests,
    monthlyQuota: row.monthly_quota,
    enabledNetworks: row.enabled_networks,
  };
}

function toOrganization(row: t.TypeOf<typeof OrganizationRow>): Organization {
  let assignment: EntitlementAssignment;
  if (row.custom_entitlements !== null) assignment = { kind: 'custom', entitlements: row.custom_entitlements };
  else if (row.plan_code !== null && row.plan_version !== null) {
    assignment = { kind: 'plan', code: row.plan_code, version: row.plan_version };
  } else throw new Error('organizations row has neither a plan nor custom entitlements');
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    assignment,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** plan_code, plan_version, custom_entitlements (JSON text) of an assignment. */
function assignmentColumns(assignment: EntitlementAssignment): [string | null, number | null, string | null] {
  if (assignment.kind === 'plan') return [assignment.code, assignment.version, null];
  const e: Entitlements = assignment.entitlements;
  const json = {
    rateLimitPerMinute: e.rateLimitPerMinute,
    maxConcurrentRequests: e.maxConcurrentRequests,
    monthlyQuota: e.monthlyQuota,
    enabledNetworks: e.enabledNetworks,
  };
  return [null, null, JSON.stringify(json)];
}

function organizationParams(o: Organization): unknown[] {
  return [o.id, o.name, o.status, ...assignmentColumns(o.assignment), o.createdAt, o.updatedAt];
}
