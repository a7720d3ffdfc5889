// A minimal browser for in-process portal tests: a cookie jar, forms, and the CSRF field of the last page.
import {
  createSafetyService,
  type CoreHttpResponse,
  type SafetyProviders,
  type SafetyService,
} from '@tron-safety/core';
import { instantChain, instantRisk } from '@tron-safety/core/testing';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createPortal, type Portal, type PortalOptions } from '../src/index.js';

export const PASSWORD = 'correct horse battery';
const operator = { kind: 'operator' } as const;

export interface Answer extends CoreHttpResponse {
  /** The page's first CSRF field, if any. */
  csrf: string | undefined;
}

export class Client {
  readonly cookies = new Map<string, string>();
  constructor(
    private readonly portal: Portal,
    readonly clientAddress = '127.0.0.1',
  ) {}

  async request(
    method: string,
    url: string,
    options: { form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const { pathname, searchParams } = new URL(url, 'http://portal.test');
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await this.portal.handle({
      method,
      path: pathname,
      query: Object.fromEntries(searchParams),
      headers: { host: 'portal.test', ...(cookie ? { cookie } : {}), ...options.headers },
      body: new TextEncoder().encode(options.form ? new URLSearchParams(options.form).toString() : ''),
      clientAddress: this.clientAddress,
    });
    const setCookie = response.headers['set-cookie'];
    if (setCookie) {
      const [pair, ...attributes] = setCookie.split('; ');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (attributes.includes('Max-Age=0')) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { ...response, csrf: /name="csrf" value="([^"]+)"/.exec(response.body)?.[1] };
  }

  get(url: string, headers?: Record<string, string>) {
    return this.request('GET', url, headers ? { headers } : {});
  }

  /** Posts the form with the CSRF token of a fresh GET of `formPage` (unless the form says otherwise). */
  async submit(formPage: string, action: string, form: Record<string, string> = {}): Promise<Answer> {
    const csrf = (await this.get(formPage)).csrf ?? '';
    return this.request('POST', action, { form: { csrf, ...form } });
  }

  /** Posts the form like `submit`, then follows its redirect as a browser does (a GET of its location). */
  async submitAndFollow(formPage: string, action: string, form: Record<string, string> = {}): Promise<Answer> {
    const posted = await this.submit(formPage, action, form);
    return posted.status === 303 ? this.get(posted.headers.location!) : posted;
  }

  async signIn(email: string, password = PASSWORD): Promise<Answer> {
    return this.submit('/portal/sign-in', '/portal/sign-in', { email, password });
  }
}

/**
 * A service on memory stores (instant providers unless given) with one organization whose owner
 * has signed up, a clock the test moves, and the portal.
 */
export async function portalWorld(options: Partial<PortalOptions> = {}, providers?: SafetyProviders) {
  const stores = createMemoryStores();
  let now = new Date('2026-06-01T12:00:00Z');
  const clock = () => now;
  const service: SafetyService = createSafetyService(
    stores,
    providers ?? { chain: instantChain(), risk: instantRisk() },
    { now: clock },
  );
  const portal = createPortal({ service, stores, secureCookies: false, now: clock, ...options });
  const organization = async (name: string) =>
    (
      await service.admin.createOrganization(operator, {
        name,
        assignment: {
          entitlements: {
            rateLimitPerMinute: 60,
            maxConcurrentRequests: 2,
            monthlyQuota: 100,
            enabledNetworks: ['tron'],
          },
        },
      })
    )._unsafeUnwrap().organization.id;
  const orgId = await organization('Acme Pay');
  /** A member of `org` (default Acme Pay) who has set the password through the invitation link. */
  const member = async (email: string, role: string, org = orgId) => {
    const invited = (await service.admin.members.inviteMember(operator, org, { email, role }))._unsafeUnwrap();
    return (await service.admin.members.acceptInvitation(invited.token, PASSWORD))._unsafeUnwrap();
  };
  const owner = await member('owner@example.com', 'owner');
  return {
    stores,
    service,
    portal,
    orgId,
    owner,
    organization,
    member,
    client: (address?: string) => new Client(portal, address),
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}
