import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Leases } from '../src/leases.js';

test('a lease counts as live until the instant it ends, also after the soonest one was deleted', () => {
  const ended: string[] = [];
  const leases = new Leases((id) => ended.push(id));
  leases.set('a', 100);
  leases.set('b', 200);
  assert.equal(leases.live(50), 2);
  // Deleting the soonest leaves the bound low: the next count scans and finds b still live.
  assert.equal(leases.delete('a'), true);
  assert.equal(leases.live(150), 1);
  leases.set('c', 120);
  assert.equal(leases.live(119), 2);
  assert.equal(leases.live(120), 1, 'a lease ending at now has ended');
  assert.deepEqual(ended, ['c']);
  assert.equal(leases.live(200), 0);
  assert.deepEqual(ended, ['c', 'b']);
  assert.equal(leases.endOf('b'), undefined);
});

test('a lease set later with an earlier end is counted out at its own end', () => {
  const leases = new Leases();
  leases.set('late', 1_000);
  assert.equal(leases.live(10), 1);
  leases.set('early', 20);
  assert.equal(leases.live(20), 1);
  assert.equal(leases.endOf('early'), undefined);
  assert.equal(leases.endOf('late'), 1_000);
});
