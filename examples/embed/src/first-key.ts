import type { SafetyService } from '@tron-safety/core';

// An embedding team has no admin CLI: it creates its plan, its organization and the first API key
// through the service's admin API, once (PostgreSQL stores keep them; memory stores lose them on exit).
export async function createFirstKey(service: SafetyService): Promise<string> {
  const operator = { kind: 'operator' } as const; // you decide who may do this in your app
  const plan = await service.admin.createPlanVersion(operator, {
    code: 'internal',
    name: 'Internal',
    rateLimitPerMinute: 600,
    maxConcurrentRequests: 8,
    monthlyQuota: 100_000,
    enabledNetworks: ['tron'],
  });
  if (plan.isErr()) throw new Error(plan.error.message);
  const org = await service.admin.createOrganization(operator, {
    name: 'Payments team',
    assignment: { plan: 'internal' },
  });
  if (org.isErr()) throw new Error(org.error.message);
  const issued = await service.admin.createApiKey(operator, org.value.organization.id, 'checkout');
  if (issued.isErr()) throw new Error(issued.error.message);
  return issued.value.key; // shown once: keep it in your secret store, send it as X-API-Key
}
