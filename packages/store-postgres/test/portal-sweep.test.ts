// The portal tables' sweep: bounded DELETE statements that catch up from any backlog, within the
// sweep's time budget like every other table.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, test } from 'node:test';
import { createPostgresStores, migrate } from '../src/index.js';
import { startTestPostgres } from '@tron-safety/store-postgres/testing';

const server = await startTestPostgres();

if (server.skip) {
  test('store-postgres: portal sweep', { skip: server.skip }, () => {});
} else {
  const database = await server.createDatabase();
  const pool = database.pool(4);
  await migrate(pool);
  const query = pool.query.bind(pool);
  after(async () => {
    await database.drop();
    await server.stop();
  });
  afterEach(async () => {
    pool.query = query;
    await pool.query('TRUNCATE portal_sessions, portal_sign_in_failures, portal_members');
  });

  const now = new Date('2026-06-01T12:00:00Z');
  const hourBefore = new Date(now.getTime() - 3_600_000);

  /** Calls `onPortalDelete` (awaited) before each DELETE on a portal table, with its text. */
  function watchPortalDeletes(onPortalDelete: (sql: string) => Promise<void> | void) {
    pool.query = (async (...args: Parameters<typeof query>) => {
      const sql = String(typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text);
      if (/DELETE FROM portal_/.test(sql)) await onPortalDelete(sql);
      return query(...args);
    }) as typeof query;
  }

  async function failureBacklog(windows: number) {
    await query(
      `INSERT INTO portal_sign_in_failures (key, window_start, count, expires_at)
       SELECT 'client:' || i, $1::timestamptz, 1, $1::timestamptz + interval '15 minutes' FROM generate_series(1, $2) i`,
      [hourBefore, windows],
    );
  }

  test('Sweep: a backlog of ended sessions and failure windows goes in statements of at most batchSize rows, live rows kept', async () => {
    await failureBacklog(12_001);
    await query(
      `INSERT INTO portal_sessions (token_hash, member_id, organization_id, created_at, expires_at, idle_expires_at)
       SELECT md5(i::text), 'm', 'o', $1, $1::timestamptz + interval '12 hours', $1::timestamptz + interval '30 minutes'
         FROM generate_series(1, 3000) i`,
      [hourBefore],
    );
    await query(
      `INSERT INTO portal_sessions (token_hash, member_id, organization_id, created_at, expires_at, idle_expires_at)
       VALUES ('live', 'm', 'o', $1, $1::timestamptz + interval '12 hours', $1::timestamptz + interval '30 minutes')`,
      [now],
    );
    let statements = 0;
    watchPortalDeletes(() => void statements++);
    const result = await createPostgresStores({ pool }).sweep(now, { batchSize: 5000 });
    assert.equal(result.portal, 15_001);
    assert.equal(result.complete, true);
    // 3000 sessions + 5000 windows, 0 + 5000, 0 + 2001; then one statement for the invitations.
    assert.equal(statements, 3 * 2 + 1);
    const left = await query(
      'SELECT (SELECT count(*) FROM portal_sessions) AS s, (SELECT count(*) FROM portal_sign_in_failures) AS f',
    );
    assert.deepEqual(left.rows[0], { s: '1', f: '0' });
  });

  test('Sweep: no portal purge batch starts past the time budget; the next sweep resumes', async () => {
    await failureBacklog(20_000);
    const budgetMs = 150;
    const lateStarts: number[] = [];
    let started = performance.now();
    // A database under load: each portal DELETE takes 100 ms.
    watchPortalDeletes(async () => {
      const at = performance.now() - started;
      if (at > budgetMs) lateStarts.push(Math.round(at));
      await new Promise((r) => setTimeout(r, 100));
    });
    const stores = createPostgresStores({ pool });
    const first = await stores.sweep(now, { budgetMs });
    assert.deepEqual(lateStarts, [], `batches started at ${lateStarts.join(', ')} ms`);
    assert.equal(first.complete, false);
    assert.ok(first.portal >= 5000 && first.portal < 20_000, `${first.portal} windows in the first sweep`);
    pool.query = query;
    started = performance.now();
    const rest = await stores.sweep(now);
    assert.equal(first.portal + rest.portal, 20_000);
    assert.equal(rest.complete, true);
  });

  test('Sweep: invitations that expired unaccepted are deleted, a pending one and an accepted member kept', async () => {
    const member = (id: string, password: string | null, expiresAt: Date | null) =>
      query(
        `INSERT INTO portal_members (id, organization_id, email, role, password_hash, invitation_hash,
           invitation_expires_at, created_at, updated_at) VALUES ($1, 'o', $1 || '@example.com', 'viewer', $2, $3, $4, $5, $5)`,
        [id, password, expiresAt && `hash-${id}`, expiresAt, hourBefore],
      );
    await member('expired', null, new Date(now.getTime() - 1));
    await member('pending', null, new Date(now.getTime() + 1));
    await member('active', 'scrypt$1$1$1$c2FsdA$a2V5', null);
    const result = await createPostgresStores({ pool }).sweep(now, { batchSize: 1 });
    assert.equal(result.invitations, 1);
    const { rows } = await query<{ id: string }>('SELECT id FROM portal_members ORDER BY id');
    assert.deepEqual(
      rows.map((r) => r.id),
      ['active', 'pending'],
    );
  });

  test('Sweep: an invitation accepted while the sweep waits on its row is kept (it has a password now)', async () => {
    const stores = createPostgresStores({ pool });
    const expiresAt = now;
    const justBefore = new Date(expiresAt.getTime() - 1);
    const member = {
      id: randomUUID(),
      organizationId: randomUUID(),
      email: 'late@example.com',
      role: 'viewer' as const,
      passwordHash: null,
      invitation: { tokenHash: 'ab'.repeat(32), expiresAt },
      createdAt: hourBefore,
      updatedAt: hourBefore,
    };
    assert.equal(await stores.members.insertMember(member), true);
    // A host accepts the link just before it expires (the store's own UPDATE, held open for the race) ...
    const acceptor = await pool.connect();
    try {
      await acceptor.query('BEGIN');
      const accepted = await acceptor.query(
        `UPDATE portal_members SET password_hash = 'scrypt$x', invitation_hash = NULL, invitation_expires_at = NULL,
              updated_at = $2 WHERE invitation_hash = $1 AND invitation_expires_at > $2 RETURNING id`,
        [member.invitation.tokenHash, justBefore],
      );
      assert.equal(accepted.rowCount, 1);
      // ... while another host's sweep, just after the expiry, starts its DELETE and waits for the row lock ...
      const purge = stores.members.purgeExpiredInvitations(new Date(expiresAt.getTime() + 1));
      await waitForLockWait();
      // ... and the acceptance commits.
      await acceptor.query('COMMIT');
      assert.equal(await purge, 0);
    } finally {
      acceptor.release();
    }
    const kept = await stores.members.getMember(member.organizationId, member.id);
    assert.equal(kept?.passwordHash, 'scrypt$x', 'the member who just accepted is kept');
  });

  /** Until a statement of this database waits for a lock (the sweep's DELETE behind the open UPDATE). */
  async function waitForLockWait() {
    for (let i = 0; i < 100; i++) {
      const { rows } = await query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.fail('the sweep never waited for the row lock');
  }
}
