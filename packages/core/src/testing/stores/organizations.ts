// Store conformance, organizations and plans: versioned plans and organizations that use them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import { type Plan } from '../../stores/organizations.js';
import { ENTITLEMENTS, T0, at, organization, tiedIds, type WithStores } from './support.js';

export function storeOrganizationsTests(withStores: WithStores): void {
  describe('organizations and plans', () => {
    withStores('plan versions: put, get, latest, replace, list', async ({ organizations }) => {
      const code = `plan-${randomUUID().slice(0, 8)}`;
      const v1: Plan = { code, version: 1, name: 'Starter', ...ENTITLEMENTS };
      const v2: Plan = { ...v1, version: 2, name: 'Starter 2', monthlyQuota: 500 };
      await organizations.putPlan(v1);
      await organizations.putPlan(v2);
      assert.deepEqual(await organizations.getPlan(code, 1), v1);
      assert.deepEqual(await organizations.latestPlan(code), v2);
      assert.equal(await organizations.getPlan(code, 3), null);
      assert.equal(await organizations.latestPlan(`${code}-missing`), null);
      await organizations.putPlan({ ...v1, name: 'Starter renamed' });
      assert.equal((await organizations.getPlan(code, 1))?.name, 'Starter renamed');
      const listed = (await organizations.listPlans()).filter((p) => p.code === code);
      assert.deepEqual(
        listed.map((p) => p.version),
        [1, 2],
      );
    });

    withStores('organizations: create once, read with the plan, update, upsert', async ({ organizations }) => {
      const code = `plan-${randomUUID().slice(0, 8)}`;
      const plan: Plan = { code, version: 1, name: 'Pro', ...ENTITLEMENTS };
      await organizations.putPlan(plan);
      const org = organization({ assignment: { kind: 'plan', code, version: 1 } });
      assert.equal(await organizations.createOrganization(org), true);
      assert.equal(await organizations.createOrganization({ ...org, name: 'other' }), false);
      const read = await organizations.getOrganization(org.id);
      assert.deepEqual(read, { organization: org, plan });
      assert.equal(await organizations.getOrganization(randomUUID()), null);

      const updated = await organizations.updateOrganization(org.id, { status: 'suspended', updatedAt: at(1000) });
      assert.equal(updated?.status, 'suspended');
      assert.deepEqual(updated?.assignment, org.assignment);
      const custom = { kind: 'custom' as const, entitlements: { ...ENTITLEMENTS, monthlyQuota: 7 } };
      await organizations.updateOrganization(org.id, { assignment: custom, updatedAt: at(2000) });
      const after = await organizations.getOrganization(org.id);
      assert.deepEqual(after?.organization.assignment, custom);
      assert.equal(after?.organization.status, 'suspended');
      assert.equal(after?.plan, null);
      assert.equal(await organizations.updateOrganization(randomUUID(), { status: 'active', updatedAt: T0 }), null);

      await organizations.putOrganization({ ...org, name: 'Renamed', status: 'active' });
      assert.equal((await organizations.getOrganization(org.id))?.organization.name, 'Renamed');
      assert.ok((await organizations.listOrganizations()).some((o) => o.id === org.id));
    });

    withStores(
      'Lists: organizations oldest first, the same millisecond by id in code units',
      async ({ organizations }) => {
        const { inserted, listed } = tiedIds();
        for (const id of inserted) assert.equal(await organizations.createOrganization(organization({ id })), true);
        const older = organization({ id: `${listed[2]}-older`, createdAt: at(-1000) });
        await organizations.createOrganization(older);
        const ours = new Set([...listed, older.id]);
        const all = await organizations.listOrganizations();
        assert.deepEqual(
          all.filter((o) => ours.has(o.id)).map((o) => o.id),
          [older.id, ...listed],
        );
      },
    );
  });
}
