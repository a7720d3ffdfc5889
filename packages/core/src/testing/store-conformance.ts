import { describe, test } from 'node:test';
import { runCheckStoreConformance } from './check-store-conformance.js';
import type { SafetyStores } from '../stores/index.js';
import { runPortalStoreConformance } from './portal-store-conformance.js';
import { runSanctionsListStoreConformance } from './sanctions-lists-conformance.js';
import { storeOrganizationsTests } from './stores/organizations.js';
import { storeApiKeysTests } from './stores/api-keys.js';
import { storeIdempotencyTests } from './stores/idempotency.js';
import { storeQuotaTests } from './stores/quota.js';
import { storeLimitsTests } from './stores/limits.js';
import { storeUsageTests } from './stores/usage.js';

/**
 * What a store implementation must do, as node:test cases: every store package runs this same
 * suite (`runStoreConformance('memory', () => ({ stores: createMemoryStores() }))`). Its parts, one
 * concern each, are in `./stores/` (and the check, portal and sanctions-list files beside this one).
 *
 * Each case asks the factory for stores and closes them after. Ids, plan codes and keys are
 * random, so a factory may hand out stores over one shared database without emptying it.
 * Time is driven through the `now` arguments only.
 */
export type StoreFactory = () =>
  | Promise<{ stores: SafetyStores; close?: () => Promise<void> }>
  | { stores: SafetyStores; close?: () => Promise<void> };

export function runStoreConformance(name: string, factory: StoreFactory): void {
  runSanctionsListStoreConformance(name, factory);
  const withStores = (title: string, body: (stores: SafetyStores) => Promise<void>) =>
    test(title, async () => {
      const { stores, close } = await factory();
      try {
        await body(stores);
      } finally {
        await close?.();
      }
    });

  describe(`${name}: store conformance`, () => {
    runCheckStoreConformance(withStores);
    runPortalStoreConformance(withStores);
    storeOrganizationsTests(withStores);
    storeApiKeysTests(withStores);
    storeIdempotencyTests(withStores);
    storeQuotaTests(withStores);
    storeLimitsTests(withStores);
    storeUsageTests(withStores);
  });
}
