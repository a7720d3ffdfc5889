import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { openStores } from '../src/stores.js';
import { startSweeper } from '../src/sweeper.js';

test('Sweeper: a tick while the previous sweep still runs is skipped, so sweeps never overlap; a failure is reported and the next tick sweeps again', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  let running = 0;
  let most = 0;
  let started = 0;
  let finish: (() => void) | null = null;
  const errors: unknown[] = [];
  const sweeper = startSweeper(
    () => {
      started++;
      most = Math.max(most, ++running);
      return new Promise<void>((resolve, reject) => {
        finish = () => (running--, started === 2 ? reject(new Error('database down')) : resolve());
      });
    },
    1000,
    (error) => errors.push(error),
  );
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  t.mock.timers.tick(1000);
  for (let i = 0; i < 5; i++) t.mock.timers.tick(1000); // a slow sweep: five ticks pass
  assert.equal(started, 1);
  finish!();
  await settle();
  t.mock.timers.tick(1000);
  assert.equal(started, 2, 'the next tick after it ends sweeps');
  finish!();
  await settle();
  assert.equal((errors[0] as Error).message, 'database down');
  t.mock.timers.tick(1000);
  assert.equal(started, 3, 'a failed sweep does not stop the sweeper');
  finish!();
  await settle();
  sweeper.stop();
  t.mock.timers.tick(5000);
  assert.equal(started, 3, 'stopped');
  assert.equal(most, 1);
});

test("Memory mode: the stores' sweep deletes invitations that expired unaccepted, except with a seed file, whose write-back sweeps them from the file and memory together", async () => {
  for (const seedFile of [false, true]) {
    const host = (await openStores(null, { seedFile }))._unsafeUnwrap();
    const organizationId = randomUUID();
    const past = new Date(Date.now() - 1000);
    await host.stores.members.insertMember({
      id: randomUUID(),
      organizationId,
      email: 'late@example.com',
      role: 'viewer',
      passwordHash: null,
      invitation: { tokenHash: 'a'.repeat(64), expiresAt: past },
      createdAt: past,
      updatedAt: past,
    });
    await host.sweep();
    assert.equal(
      (await host.stores.members.listMembers(organizationId)).length,
      seedFile ? 1 : 0,
      `seed file: ${seedFile}`,
    );
  }
});
