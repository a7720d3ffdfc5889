import { readFileSync } from 'node:fs';
import type { CoreHttpResponse, SafetyStores } from '@tron-safety/core';
import { withDefaults } from '@tron-safety/core/internal';
import type { PortalDeps, PortalService, SignedIn } from './context.js';
import { Cookies } from './cookies.js';
import { Form, isPortalPath, PORTAL_PATH, redirect, SECURITY_HEADERS, type PortalRequest } from './http.js';
import { csrfRefused, errorPage } from './pages/errors.js';
import { Reveals } from './reveal.js';
import { match, MEMBER_ROUTES, PUBLIC_ROUTES } from './routes.js';
import { csrfTokenOf, DEFAULT_SESSION_POLICY, sameSecret, Sessions, type SessionPolicy } from './session.js';
import { DEFAULT_THROTTLE_POLICY, SignInThrottle, type ThrottlePolicy } from './throttle.js';

export interface PortalOptions {
  /**
   * The service: its admin API (keys, usage, members, with roles enforced) and `checkAsOrganization`
   * (the check form runs the API's path for the member's organization).
   */
  service: PortalService;
  /** The stores the service runs on: the portal reads members and keeps its sessions there. */
  stores: Pick<SafetyStores, 'members' | 'sessions'>;
  /**
   * The portal is served over HTTPS (directly or behind a TLS-terminating proxy): its cookies are then
   * `__Host-` cookies (`Secure`, `Path=/`, no `Domain`) and every answer carries
   * `Strict-Transport-Security: max-age=31536000`. False only for plain HTTP on loopback.
   */
  secureCookies: boolean;
  /**
   * The origin browsers reach the portal at (`https://safety.example.com`, no path: the portal is at its
   * `/portal/`), for the absolute links it shows to be sent elsewhere (invitations); a function when it is
   * known only once the server listens. Never taken from a request (a `Host` header is the client's to
   * choose). Null or absent: such links are shown as a path, for the inviter to complete.
   */
  publicUrl?: string | (() => string | null);
  /** Clock of session and throttle decisions (tests inject one; the admin API has its own). */
  now?: () => Date;
  session?: Partial<SessionPolicy>;
  throttle?: Partial<ThrottlePolicy>;
  /** Called with an unexpected failure (a store that failed); the member gets a 500 page. */
  onError?: (error: unknown) => void;
  /**
   * What that 500 page tells the member about a failure the host knows (e.g. a change it could not
   * make durable, so made nothing); null for the general message.
   */
  explainError?: (error: unknown) => string | null;
}

export interface Portal {
  /** Answers a request under `/portal`. Never rejects. */
  handle(request: PortalRequest): Promise<CoreHttpResponse>;
}

const HSTS = 'max-age=31536000';

const ASSETS: Record<string, string> = {
  '/assets/portal.css': 'text/css; charset=utf-8',
  '/assets/portal.js': 'text/javascript; charset=utf-8',
};

/** The stylesheet and the copy-button script, beside `src/` and `dist/` alike. */
function loadAssets(): Map<string, CoreHttpResponse> {
  const assets = new Map<string, CoreHttpResponse>();
  for (const [path, type] of Object.entries(ASSETS)) {
    const body = readFileSync(new URL(`..${path}`, import.meta.url), 'utf8');
    assets.set(path, {
      status: 200,
      headers: { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': 'no-cache' },
      body,
    });
  }
  return assets;
}

/**
 * The developer portal: server-rendered pages that work without client-side script, on top of the
 * service's admin API (every action runs as the signed-in member, so the core checks its role and
 * scopes it to its organization) and the member and session stores.
 */
export function createPortal(options: PortalOptions): Portal {
  const now = options.now ?? (() => new Date());
  const cookies = new Cookies(options.secureCookies);
  const { publicUrl } = options;
  const deps: PortalDeps = {
    admin: options.service.admin,
    service: options.service,
    members: options.stores.members,
    sessions: new Sessions(options.stores.sessions, withDefaults(DEFAULT_SESSION_POLICY, options.session), cookies),
    reveals: new Reveals(cookies),
    throttle: new SignInThrottle(options.stores.sessions, withDefaults(DEFAULT_THROTTLE_POLICY, options.throttle)),
    publicUrl: typeof publicUrl === 'function' ? publicUrl : () => publicUrl ?? null,
    now,
  };
  const assets = loadAssets();
  // Over HTTPS, browsers keep to HTTPS for a year: a later visit typed or bookmarked as http:// is not
  // sent in the clear, where a network attacker could serve its own sign-in form.
  const transport: Record<string, string> = options.secureCookies ? { 'strict-transport-security': HSTS } : {};
  const answerSafely = async (request: PortalRequest): Promise<CoreHttpResponse> => {
    try {
      return await answer(deps, assets, request);
    } catch (error) {
      options.onError?.(error);
      const message = options.explainError?.(error) ?? 'The portal could not answer. Try again in a moment.';
      return errorPage(null, { status: 500, message });
    }
  };
  return {
    async handle(request) {
      const response = await answerSafely(request);
      return { ...response, headers: { ...response.headers, ...transport } };
    },
  };
}

async function answer(
  deps: PortalDeps,
  assets: Map<string, CoreHttpResponse>,
  request: PortalRequest,
): Promise<CoreHttpResponse> {
  if (!isPortalPath(request.path)) return errorPage(null, { status: 404, message: 'No such page.' });
  const path = request.path.slice(PORTAL_PATH.length) || '/';
  const method = request.method.toUpperCase();
  if (request.path === PORTAL_PATH) return redirect(`${PORTAL_PATH}/`);
  if (request.bodyTooLarge)
    return errorPage(null, { status: 413, message: 'The form is larger than the portal accepts.' });
  const asset = assets.get(path);
  if (asset && (method === 'GET' || method === 'HEAD')) return asset;

  const open = match(PUBLIC_ROUTES, method, path);
  if (open && 'route' in open) return open.route.run({ deps, request }, open.id);
  const routed = match(MEMBER_ROUTES, method, path);
  if (routed && 'route' in routed) {
    const ctx = await signedIn(deps, request);
    if (!ctx) return redirect(`${PORTAL_PATH}/sign-in`);
    if (method === 'POST' && !sameSecret(ctx.form.field('csrf') ?? '', ctx.csrf)) return csrfRefused(ctx);
    return deps.sessions.withoutFormCookie(request, await routed.route.run(ctx, routed.id));
  }
  const allow = [open, routed].flatMap((m) => (m && 'allow' in m ? [m.allow] : [])).join(', ');
  return allow
    ? errorPage(null, { status: 405, message: `This page answers ${allow} only.`, headers: { allow } })
    : errorPage(null, { status: 404, message: 'No such page.' });
}

/**
 * The member behind the request's session cookie, as of now: a removed member or a member of
 * another organization than the session's is signed out. API keys are never looked at here.
 */
async function signedIn(deps: PortalDeps, request: PortalRequest): Promise<SignedIn | null> {
  const resumed = await deps.sessions.resume(request, deps.now());
  if (!resumed) return null;
  const { session, token } = resumed;
  const member = await deps.members.getMember(session.organizationId, session.memberId);
  if (!member) {
    await deps.sessions.end(token);
    return null;
  }
  const actor = { kind: 'member', organizationId: member.organizationId, role: member.role } as const;
  const organization = await deps.admin.getOrganization(actor, member.organizationId);
  if (organization.isErr()) return null;
  return {
    deps,
    request,
    form: new Form(request.body),
    member,
    actor,
    organization: organization.value,
    csrf: csrfTokenOf(token),
    sessionToken: token,
  };
}
