import type {
  AdminApi,
  AdminActor,
  AdminError,
  MemberRecord,
  MemberStore,
  OrganizationView,
  SafetyService,
} from '@tron-safety/core';
import type { Form, PortalRequest } from './http.js';
import type { Reveals } from './reveal.js';
import type { Sessions } from './session.js';
import type { SignInThrottle } from './throttle.js';

/** What the portal needs of the service: its admin API and the check of a signed-in member's organization. */
export type PortalService = Pick<SafetyService, 'admin' | 'checkAsOrganization'>;

/** What every page handler may use: the service, the member store, sessions, the clock. */
export interface PortalDeps {
  admin: AdminApi;
  service: PortalService;
  members: MemberStore;
  sessions: Sessions;
  /** Secrets carried from a form to the page after it (see `Reveals`). */
  reveals: Reveals;
  throttle: SignInThrottle;
  /** The configured origin of the portal for absolute links, or null (see `PortalOptions.publicUrl`). */
  publicUrl: () => string | null;
  now: () => Date;
}

/** A request of a signed-in member: every action runs as this member, on its own organization only. */
export interface SignedIn {
  deps: PortalDeps;
  request: PortalRequest;
  form: Form;
  member: MemberRecord;
  actor: AdminActor & { kind: 'member' };
  organization: OrganizationView;
  /** The session's CSRF token, put in every form. */
  csrf: string;
  sessionToken: string;
}

/** The HTTP status of an admin API refusal. */
export function statusOf(error: AdminError): number {
  return { forbidden: 403, not_found: 404, invalid: 422, conflict: 409, busy: 503 }[error.code];
}
