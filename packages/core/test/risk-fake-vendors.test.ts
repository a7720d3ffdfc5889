import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFakeChainalysis, type FakeChainalysis } from '../src/testing/fake-vendors.js';

const A = 'TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre';
let fake: FakeChainalysis;
before(async () => {
  fake = await startFakeChainalysis({
    apiKey: 'k',
    entities: { [A]: { risk: 'High', exposures: [{ category: 'sanctions', value: 10 }] } },
    sanctioned: { [A]: [{ category: 'sanctions', name: 'SANCTIONS: OFAC SDN test' }] },
  });
});
after(() => fake.close());

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });
const json = async (r: Response) => (await r.json()) as any;

test('the fake serves both APIs per address, checks the key and logs calls', async () => {
  const entity = await json(await get(`${fake.entityUrl}/v2/entities/${A}`, { Token: 'k' }));
  assert.equal(entity.risk, 'High');
  assert.equal(entity.exposures[0].exposureType, 'direct');
  const other = await json(await get(`${fake.entityUrl}/v2/entities/TOther`, { Token: 'k' }));
  assert.equal(other.risk, 'Low');
  const sanctions = await json(await get(`${fake.sanctionsUrl}/address/${A}`, { 'X-API-Key': 'k' }));
  assert.equal(sanctions.identifications.length, 1);
  assert.equal((await get(`${fake.sanctionsUrl}/address/${A}`)).status, 401);
  assert.deepEqual(
    fake.calls.map((c) => [c.api, c.apiKey]),
    [
      ['entity', 'k'],
      ['entity', 'k'],
      ['sanctions', 'k'],
      ['sanctions', null],
    ],
  );
});

test('faults: status, malformed body, missing fields', async () => {
  fake.setFault('entity', '*', { kind: 'status', status: 429 });
  const limited = await get(`${fake.entityUrl}/v2/entities/${A}`, { Token: 'k' });
  assert.equal(limited.status, 429);
  await limited.arrayBuffer();
  fake.setFault('entity', '*', { kind: 'malformed' });
  assert.equal(await (await get(`${fake.entityUrl}/v2/entities/${A}`, { Token: 'k' })).text(), '{"risk": "Sev');
  fake.setFault('entity', '*', { kind: 'missing_fields' });
  const missing = await json(await get(`${fake.entityUrl}/v2/entities/${A}`, { Token: 'k' }));
  assert.equal(missing.risk, undefined);
  fake.setFault('entity', '*', { kind: 'incomplete' });
  const pending = await json(await get(`${fake.entityUrl}/v2/entities/${A}`, { Token: 'k' }));
  assert.deepEqual(
    [pending.status, pending.risk],
    ['PENDING', 'High'],
    'the answer as usual, its assessment not complete',
  );
  fake.setFault('entity', '*', null);
});
