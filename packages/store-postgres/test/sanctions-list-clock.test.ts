// The shared sanctions list's dates are refereed by the database's clock: a host whose clock is ahead (a wrong
// NTP setting) cannot store a confirmation that other hosts take as current once real time reaches it.
// The hosts' clocks are offsets from the real time, since the database's clock cannot be moved.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createRiskProviders } from '@tron-safety/core';
import { OfacRefresher } from '@tron-safety/core/sanctions';
import { bundledSdnEntries, startFakeOfac } from '@tron-safety/core/testing';
import { createPostgresStores, migrate } from '../src/index.js';
import { startTestPostgres } from '@tron-safety/store-postgres/testing';

const server = await startTestPostgres();
after(() => server.stop());

const DAY = 86_400_000;
const CLEAN = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
const ctx = { signal: new AbortController().signal };

/** Host A on the right clock and host F two days ahead, sharing one database and OFAC's server. */
async function hosts() {
  const database = await server.createDatabase();
  const start = new Date();
  const ofac = await startFakeOfac({ published: new Date(start.getTime() - DAY), entries: bundledSdnEntries() });
  const pool = () => createPostgresStores({ pool: database.pool(2) });
  const [storeA, storeF] = [pool(), pool()];
  await migrate(storeA.pool);
  let elapsed = 0; // real time since `start` as host A sees it
  const clockA = () => new Date(start.getTime() + elapsed);
  const hostA = new OfacRefresher({ store: storeA.sanctionsLists, url: ofac.url, now: clockA });
  const hostF = new OfacRefresher({
    store: storeF.sanctionsLists,
    url: ofac.url,
    now: () => new Date(clockA().getTime() + 2 * DAY),
  });
  const risk = createRiskProviders({ ofacList: hostA, now: () => clockA().getTime() })._unsafeUnwrap();
  return {
    start,
    hostA,
    hostF,
    ofac,
    stored: async () => (await storeA.sanctionsLists.currentHeader())!,
    /** Host A's clock `ms` after the start; it syncs as the host does every minute, OFAC unreachable. */
    laterOnA: async (ms: number) => {
      elapsed = ms;
      await hostA.sync();
      assert.equal((await hostA.refresh())._unsafeUnwrapErr().kind, 'download');
      return (await risk.sanctions.screen([CLEAN], ctx)).status;
    },
    close: async () => (await ofac.close(), await database.drop()),
  };
}

describe('store-postgres: sanctions list dates on the database clock', { skip: server.skip }, () => {
  test('a confirmation stored by a host whose clock is ahead counts as of the database clock: once OFAC is unreachable, the list ages from then, and is stale past the limit', async () => {
    const { start, hostA, hostF, ofac, stored, laterOnA, close } = await hosts();
    try {
      assert.equal((await hostA.refresh())._unsafeUnwrap().kind, 'replaced');
      assert.equal((await hostF.refresh())._unsafeUnwrap().kind, 'confirmed');
      assert.ok((await stored()).confirmedAt.getTime() <= Date.now(), 'not dated beyond the database clock');
      ofac.setFault({ kind: 'status', status: 503 });
      assert.equal(await laterOnA(DAY), 'answered');
      await laterOnA(2 * DAY + 3_600_000); // host F's date, had it been stored, would now be in the past
      assert.equal(await laterOnA(3 * DAY), 'unavailable', `last confirmed ${start.toISOString()}, 3 days ago`);
    } finally {
      await close();
    }
  });

  test('a list stored by a host whose clock is ahead is published and confirmed no later than the database clock', async () => {
    const { start, hostF, ofac, stored, laterOnA, close } = await hosts();
    try {
      assert.equal((await hostF.refresh())._unsafeUnwrap().kind, 'replaced');
      const { confirmedAt, publishedAt } = await stored();
      assert.ok(confirmedAt.getTime() <= Date.now() && publishedAt.getTime() <= Date.now());
      ofac.setFault({ kind: 'status', status: 503 });
      assert.equal(await laterOnA(3 * DAY), 'unavailable', `last confirmed ${start.toISOString()}, 3 days ago`);
    } finally {
      await close();
    }
  });
});
