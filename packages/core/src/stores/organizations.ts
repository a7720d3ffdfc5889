/** Organizations (tenants), their versioned plans and custom entitlements. */

export type OrganizationStatus = 'active' | 'suspended';

/**
 * The largest limit or plan version a store must keep: PostgreSQL's `integer`, which the store's
 * columns and functions use. The admin API refuses more.
 */
export const MAX_ENTITLEMENT = 2_147_483_647;

/** What an organization may do; from its plan version or a custom assignment. */
export interface Entitlements {
  rateLimitPerMinute: number;
  maxConcurrentRequests: number;
  monthlyQuota: number;
  enabledNetworks: string[];
}

/** One version of a plan. Versions are immutable once organizations use them; changes make a new version. */
export interface Plan extends Entitlements {
  code: string;
  version: number;
  name: string;
}

export type EntitlementAssignment =
  { kind: 'plan'; code: string; version: number } | { kind: 'custom'; entitlements: Entitlements };

export interface Organization {
  /** UUID (the usage report's `tenant_id`). */
  id: string;
  name: string;
  status: OrganizationStatus;
  assignment: EntitlementAssignment;
  createdAt: Date;
  updatedAt: Date;
}

/** An organization with the plan version it is assigned (null for custom entitlements). */
export interface OrganizationAccess {
  organization: Organization;
  plan: Plan | null;
}

export interface OrganizationUpdate {
  status?: OrganizationStatus;
  assignment?: EntitlementAssignment;
  updatedAt: Date;
}

export interface OrganizationStore {
  /** Inserts or replaces the plan version `(code, version)`. */
  putPlan(plan: Plan): Promise<void>;
  getPlan(code: string, version: number): Promise<Plan | null>;
  /** The highest version of `code`, or null when the code is unknown. */
  latestPlan(code: string): Promise<Plan | null>;
  listPlans(): Promise<Plan[]>;

  /** Inserts a new organization; false (and no change) when the id exists. */
  createOrganization(organization: Organization): Promise<boolean>;
  /** Inserts or replaces by id (seeding). */
  putOrganization(organization: Organization): Promise<void>;
  /** The organization and its assigned plan version, in one read (a join in SQL). */
  getOrganization(id: string): Promise<OrganizationAccess | null>;
  /** Every organization, oldest first (the same creation time: by id, in code units). */
  listOrganizations(): Promise<Organization[]>;
  /** Applies the given fields; null when the id is unknown. */
  updateOrganization(id: string, update: OrganizationUpdate): Promise<Organization | null>;
}

/** The organization's entitlements: its plan version's, or its custom ones. Null when the plan is missing. */
export function entitlementsOf(access: OrganizationAccess): Entitlements | null {
  const { assignment } = access.organization;
  if (assignment.kind === 'custom') return assignment.entitlements;
  const { plan } = access;
  return plan
    ? {
        rateLimitPerMinute: plan.rateLimitPerMinute,
        maxConcurrentRequests: plan.maxConcurrentRequests,
        monthlyQuota: plan.monthlyQuota,
        enabledNetworks: plan.enabledNetworks,
      }
    : null;
}
