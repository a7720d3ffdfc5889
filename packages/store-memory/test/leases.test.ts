import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Leases } from '../src/leases.js';

test('a lease counts as live until the instant it ends, also after the soonest one was deleted', () => {
  const leases = new Leases();
  leases.set('a', 100);
  leases.set('b', 200);
  assert.equal(leases.live(50), 2);
  // Deleting the soonest leaves the bound low: the next count scans and finds b still live.
  assert.equal(leases.delete('a'), true);
  assert.equal(leases.live(150), 1);
  leases.set('c', 120);
  assert.equal(leases.live(119), 2);
  assert.equal(leases.live(120), 1, 'a lease ending at now has ended');
  assert.equal(leases.live(200), 0);
});

test('a lease set later with an earlier end is counted out at its own end', () => {
  const leases = new Leases();
  leases.set('late', 1_000);
  assert.equal(leases.live(10), 1);
  leases.set('early', 20);
  assert.equal(leases.live(20), 1);
  assert.equal(leases.live(19), 2);
  leases.set('ended', 5);
  assert.equal(leases.live(20), 1, 'one set already ended is not counted');
});

test('a count deletes nothing: a lease ended at a later clock is live at an earlier one until purged', () => {
  const purged: string[] = [];
  const leases = new Leases((id) => purged.push(id));
  leases.set('a', 100);
  leases.set('b', 300);
  assert.equal(leases.live(200), 1);
  assert.equal(leases.live(99), 2, 'a clock behind still sees a live');
  assert.equal(leases.endOf('a'), 100);
  assert.equal(leases.delete('b'), true);
  assert.equal(leases.live(99), 1);
  assert.equal(leases.purge(150), 1);
  assert.deepEqual(purged, ['a']);
  assert.equal(leases.live(99), 0);
  assert.equal(leases.size, 0);
});
