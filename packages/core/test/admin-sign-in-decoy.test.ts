// The decoy hash an unknown email is checked against is computed once per process, so this test has a
// file (a process) of its own: it needs the first computation to meet full derivations.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createAdminApi } from '../src/runtime/admin.js';
import { fillDerivations } from './password-support.js';

test('Sign-in: a decoy hash refused while the derivations are full is answered `busy` and computed again, so an unknown email is answered like a wrong password once they are free (never busy for good)', async (t) => {
  const admin = createAdminApi(createMemoryStores(), () => new Date('2026-06-01T12:00:00Z'));
  const flood = await fillDerivations(t);
  // The first sign-in of an unknown email since the start is busy (try again), an answer rather than a rejection ...
  assert.deepEqual(
    (await admin.members.checkPassword('nobody@example.com', 'correct horse battery'))._unsafeUnwrapErr(),
    {
      code: 'busy',
      message: 'too many password derivations at once: try again in a moment',
    },
  );
  await flood.release();
  // ... and once the flood has passed, an unknown email is a wrong password like any other.
  assert.equal(
    (await admin.members.checkPassword('nobody@example.com', 'correct horse battery'))._unsafeUnwrap(),
    null,
  );
});
