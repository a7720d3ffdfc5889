import type { Organization, OrganizationAccess, OrganizationStore, OrganizationUpdate, Plan } from '@tron-safety/core';
import { frozenCopy } from './frozen.js';
import { byCreation } from './order.js';

/** Plans and organizations, stored frozen: reads hand out the stored objects, never copies. */
export class MemoryOrganizationStore implements OrganizationStore {
  readonly #plans = new Map<string, Plan>();
  readonly #organizations = new Map<string, Organization>();

  async putPlan(plan: Plan): Promise<void> {
    this.#plans.set(planKey(plan.code, plan.version), frozenCopy(plan));
  }

  async getPlan(code: string, version: number): Promise<Plan | null> {
    return this.#plans.get(planKey(code, version)) ?? null;
  }

  async latestPlan(code: string): Promise<Plan | null> {
    let latest: Plan | null = null;
    for (const plan of this.#plans.values()) {
      if (plan.code === code && (!latest || plan.version > latest.version)) latest = plan;
    }
    return latest;
  }

  async listPlans(): Promise<Plan[]> {
    return [...this.#plans.values()].sort((a, b) =>
      a.code === b.code ? a.version - b.version : a.code < b.code ? -1 : 1,
    );
  }

  async createOrganization(organization: Organization): Promise<boolean> {
    if (this.#organizations.has(organization.id)) return false;
    this.#organizations.set(organization.id, frozenCopy(organization));
    return true;
  }

  async putOrganization(organization: Organization): Promise<void> {
    this.#organizations.set(organization.id, frozenCopy(organization));
  }

  async getOrganization(id: string): Promise<OrganizationAccess | null> {
    return this.access(id);
  }

  /** `getOrganization` without a promise, for the check store's begin. */
  access(id: string): OrganizationAccess | null {
    const organization = this.#organizations.get(id);
    if (!organization) return null;
    const { assignment } = organization;
    const plan =
      assignment.kind === 'plan' ? (this.#plans.get(planKey(assignment.code, assignment.version)) ?? null) : null;
    return { organization, plan };
  }

  async listOrganizations(): Promise<Organization[]> {
    return [...this.#organizations.values()].sort(byCreation);
  }

  async updateOrganization(id: string, update: OrganizationUpdate): Promise<Organization | null> {
    const current = this.#organizations.get(id);
    if (!current) return null;
    const next = frozenCopy({
      ...current,
      status: update.status ?? current.status,
      assignment: update.assignment ?? current.assignment,
      updatedAt: update.updatedAt,
    });
    this.#organizations.set(id, next);
    return next;
  }
}

const planKey = (code: string, version: number) => `${code}\u0000${version}`;
