import type { CoreHttpResponse } from '@tron-safety/core';
import type { PortalDeps, SignedIn } from './context.js';
import type { PortalRequest } from './http.js';
import { PORTAL_PATH, redirect } from './http.js';
import { checkPage, runCheck } from './pages/check.js';
import { acceptInvitation, invitationPage } from './pages/invitation.js';
import { confirmKeyAction, createKey, issuedKeyPage, keysPage, revokeKey, rotateKey } from './pages/keys.js';
import {
  confirmRemoval,
  invitedMemberPage,
  inviteMember,
  membersPage,
  removeMember,
  setMemberRole,
} from './pages/members.js';
import { overviewPage } from './pages/overview.js';
import { signIn, signInPage } from './pages/sign-in.js';
import { usagePage } from './pages/usage.js';

interface Route<C> {
  method: 'GET' | 'POST';
  pattern: RegExp;
  run: (context: C, id: string) => Promise<CoreHttpResponse> | CoreHttpResponse;
}

/** `/keys/:id/rotate` → a pattern whose one group is the id (ids are UUIDs). */
function route<C>(method: Route<C>['method'], path: string, run: Route<C>['run']): Route<C> {
  return { method, pattern: new RegExp(`^${path.replace(':id', '([0-9a-f-]{36})')}$`), run };
}

type Public = { deps: PortalDeps; request: PortalRequest };

/** Routes before sign-in (paths relative to `/portal`). */
export const PUBLIC_ROUTES: Route<Public>[] = [
  route('GET', '/', async ({ deps, request }) =>
    redirect(`${PORTAL_PATH}/${(await deps.sessions.resume(request, deps.now())) ? 'overview' : 'sign-in'}`),
  ),
  route('GET', '/sign-in', ({ deps, request }) => signInPage(deps, request)),
  route('POST', '/sign-in', ({ deps, request }) => signIn(deps, request)),
  route('GET', '/invitation', ({ deps, request }) => invitationPage(deps, request)),
  route('POST', '/invitation', ({ deps, request }) => acceptInvitation(deps, request)),
];

/** Routes of a signed-in member; every POST has passed the CSRF check before it runs. */
export const MEMBER_ROUTES: Route<SignedIn>[] = [
  route('GET', '/overview', overviewPage),
  route('GET', '/keys', (ctx) => keysPage(ctx)),
  route('POST', '/keys', createKey),
  route('GET', '/keys/issued', issuedKeyPage),
  route('GET', '/keys/:id/rotate', (ctx, id) => confirmKeyAction(ctx, id, 'rotate')),
  route('POST', '/keys/:id/rotate', rotateKey),
  route('GET', '/keys/:id/revoke', (ctx, id) => confirmKeyAction(ctx, id, 'revoke')),
  route('POST', '/keys/:id/revoke', revokeKey),
  route('GET', '/usage', usagePage),
  route('GET', '/check', checkPage),
  route('POST', '/check', runCheck),
  route('GET', '/members', (ctx) => membersPage(ctx)),
  route('POST', '/members', inviteMember),
  route('GET', '/members/invited', invitedMemberPage),
  route('POST', '/members/:id/role', setMemberRole),
  route('GET', '/members/:id/remove', confirmRemoval),
  route('POST', '/members/:id/remove', removeMember),
  route('POST', '/sign-out', async (ctx) =>
    redirect(`${PORTAL_PATH}/sign-in?done=signed-out`, { 'set-cookie': await ctx.deps.sessions.end(ctx.sessionToken) }),
  ),
];

export type Match<C> = { route: Route<C>; id: string } | { allow: string } | null;

/** The route for the method and path; `allow` when only the method is wrong; null when no path matches. */
export function match<C>(routes: Route<C>[], method: string, path: string): Match<C> {
  const candidates = routes.filter((r) => r.pattern.test(path));
  if (candidates.length === 0) return null;
  const wanted = method === 'HEAD' ? 'GET' : method;
  const found = candidates.find((r) => r.method === wanted);
  if (!found) return { allow: candidates.map((r) => r.method).join(', ') };
  return { route: found, id: found.pattern.exec(path)![1] ?? '' };
}
