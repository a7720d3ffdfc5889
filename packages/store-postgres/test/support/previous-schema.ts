import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/**
 * An organization (custom entitlements: 100 a minute, 5 at once, quota 10, tron) and one API key of it,
 * written with plain SQL as a database of an earlier schema holds them, for the upgrade tests.
 */
export async function insertOrganizationWithKey(
  pool: pg.Pool,
  organization: { id: string; name: string },
  key: { hash: string; label: string; prefix: string },
): Promise<void> {
  await pool.query(
    `INSERT INTO organizations (id, name, status, custom_entitlements, created_at, updated_at)
     VALUES ($1, $2, 'active', $3, now(), now())`,
    [
      organization.id,
      organization.name,
      JSON.stringify({
        rateLimitPerMinute: 100,
        maxConcurrentRequests: 5,
        monthlyQuota: 10,
        enabledNetworks: ['tron'],
      }),
    ],
  );
  await pool.query(
    `INSERT INTO api_keys (id, organization_id, label, hash, prefix, created_at) VALUES ($1, $2, $3, $4, $5, now())`,
    [randomUUID(), organization.id, key.label, key.hash, key.prefix],
  );
}
