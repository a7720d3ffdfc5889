import type { CoreHttpResponse, MemberRole, MemberView } from '@tron-safety/core';
import { MEMBER_ROLES, mayManageMembers } from '@tron-safety/core/internal';
import type { SignedIn } from '../context.js';
import { formatTime, sentence } from '../format.js';
import { html, type Html } from '../html.js';
import { PORTAL_PATH, queryValue, redirect } from '../http.js';
import { errorPage, refusal } from './errors.js';
import { csrfField, layout, notice, problem, shownOnce, table } from './layout.js';
import { redirectToReveal, showReveal } from './revealed.js';

const MEMBERS = `${PORTAL_PATH}/members`;

/** The roles this member may give: an admin cannot make owners. */
function grantable(ctx: SignedIn): readonly MemberRole[] {
  return ctx.member.role === 'owner' ? MEMBER_ROLES : MEMBER_ROLES.filter((r) => r !== 'owner');
}

/** Whether this member may change `other`: owners and admins may, but only an owner changes an owner. */
function mayChange(ctx: SignedIn, other: MemberView): boolean {
  return mayManageMembers(ctx.member.role) && (other.role !== 'owner' || ctx.member.role === 'owner');
}

function roleSelect(ctx: SignedIn, view: { id: string; name: string; label: string; selected: MemberRole }): Html {
  const options = grantable(ctx).map(
    (role) => html`<option value="${role}" ${role === view.selected ? html` selected` : ''}>${role}</option>`,
  );
  return html`<select id="${view.id}" name="${view.name}" aria-label="${view.label}">
    ${options}
  </select>`;
}

function row(ctx: SignedIn, member: MemberView): Html {
  const state =
    member.status === 'active'
      ? html`<span class="badge ok">active</span>`
      : html`<span class="badge">invited</span>
          <span class="muted">until ${formatTime(member.invitationExpiresAt!)}</span>`;
  const actions = mayChange(ctx, member)
    ? html`<form method="post" action="${MEMBERS}/${member.id}/role" class="inline">
          ${csrfField(ctx.csrf)}${roleSelect(ctx, { id: `role-${member.id}`, name: 'role', label: `Role of ${member.email}`, selected: member.role })}
          <button type="submit" aria-label="Change role of ${member.email}">Change role</button>
        </form>
        <a href="${MEMBERS}/${member.id}/remove" class="danger" aria-label="Remove ${member.email}">Remove</a>`
    : '';
  return html`<tr>
    <td>${member.email}${member.id === ctx.member.id ? html` <span class="muted">(you)</span>` : ''}</td>
    <td>${member.role}</td>
    <td>${state}</td>
    <td>${actions}</td>
  </tr>`;
}

function inviteForm(ctx: SignedIn): Html {
  if (!mayManageMembers(ctx.member.role))
    return html`<p class="hint">Owners and admins invite members and change their roles.</p>`;
  return html`<section aria-labelledby="invite-heading">
    <h2 id="invite-heading">Invite a member</h2>
    <form method="post" action="${MEMBERS}" class="inline">
      ${csrfField(ctx.csrf)}
      <label for="invite-email">Email</label>
      <input id="invite-email" name="email" type="email" required maxlength="254" />
      <label for="invite-role">Role</label>
      ${roleSelect(ctx, { id: 'invite-role', name: 'role', label: 'Role', selected: 'developer' })}
      <button type="submit">Invite</button>
    </form>
    <p class="hint">
      Owners and admins manage members; owners, admins and developers manage API keys; billing and viewer members see
      usage and key metadata only.
    </p>
  </section>`;
}

/** `GET /portal/members`. */
export async function membersPage(
  ctx: SignedIn,
  view: { error?: string; status?: number } = {},
): Promise<CoreHttpResponse> {
  const listed = await ctx.deps.admin.members.listMembers(ctx.actor, ctx.organization.organization.id);
  if (listed.isErr()) return refusal(ctx, listed.error);
  const body = html`${notice(queryValue(ctx.request, 'done'))}${problem(view.error)}
  ${table(
    ['Email', 'Role', 'Status'],
    listed.value.map((m) => row(ctx, m)),
  )}
  ${inviteForm(ctx)}`;
  return layout(ctx, { title: 'Members', section: 'members', body, status: view.status ?? 200 });
}

/**
 * The link sent to the invited person: on the portal's configured origin, never one a request's `Host`
 * header named (anyone can send one, and an inviter would pass on a link to their site); a path alone
 * when no origin is configured.
 */
function invitationLink(ctx: SignedIn, token: string): string {
  return `${ctx.deps.publicUrl() ?? ''}${PORTAL_PATH}/invitation?token=${token}`;
}

function invitedPage(ctx: SignedIn, member: MemberView, token: string): CoreHttpResponse {
  const completed = ctx.deps.publicUrl() !== null;
  const body = html`<p class="notice" role="status">${member.email} is invited as ${member.role}.</p>
    <p>
      <strong>Send this link to ${member.email} now: it is not shown again.</strong> It sets their password once and
      works until ${formatTime(member.invitationExpiresAt!)}.
    </p>
    ${shownOnce({ id: 'invitation-link', label: 'Invitation link', value: invitationLink(ctx, token) })}
    ${
      !completed &&
      html`<p class="hint">
        The portal is not configured with its public address, so the link is a path: put the address you reached the
        portal at in front of it.
      </p>`
    }
    <p><a href="${MEMBERS}">Back to the members</a></p>`;
  return layout(ctx, { title: 'Invitation', section: 'members', body });
}

/** `GET /portal/members/invited`: where an invitation leads; shows its link once, while it is pending. */
export function invitedMemberPage(ctx: SignedIn): Promise<CoreHttpResponse> {
  return showReveal(
    ctx,
    'invitation',
    async ({ secret }) => {
      const pending = await ctx.deps.admin.members.invitation(secret);
      return pending.isOk() && pending.value.organizationId === ctx.organization.organization.id
        ? invitedPage(ctx, pending.value, secret)
        : null;
    },
    `${MEMBERS}?done=invitation-shown`,
  );
}

/**
 * `POST /portal/members`: invites through the core's admin API (which checks the role), then redirects
 * to the page that shows the link once, so a reload invites nobody again.
 *
 * An email that is a member of another organization is refused (409), as one of this organization is:
 * an email is one member across organizations (sign-in asks no organization), so this tells an owner or
 * admin that the address has an account elsewhere. No answer hides it without changing that model: a
 * feigned success would show no pending member in the list (see the README, Developer portal).
 */
export async function inviteMember(ctx: SignedIn): Promise<CoreHttpResponse> {
  const invited = await ctx.deps.admin.members.inviteMember(ctx.actor, ctx.organization.organization.id, {
    email: ctx.form.field('email') ?? '',
    role: ctx.form.field('role') ?? '',
  });
  if (invited.isOk())
    return redirectToReveal(ctx, `${MEMBERS}/invited`, { kind: 'invitation', secret: invited.value.token });
  if (invited.error.code === 'forbidden') return refusal(ctx, invited.error);
  return membersPage(ctx, {
    error: `Not invited: ${invited.error.message}.`,
    status: invited.error.code === 'conflict' ? 409 : 422,
  });
}

/** `POST /portal/members/:id/role`. */
export async function setMemberRole(ctx: SignedIn, id: string): Promise<CoreHttpResponse> {
  const changed = await ctx.deps.admin.members.setMemberRole(
    ctx.actor,
    ctx.organization.organization.id,
    id,
    ctx.form.field('role') ?? '',
  );
  if (changed.isOk()) return redirect(`${MEMBERS}?done=role`);
  if (changed.error.code === 'conflict')
    return membersPage(ctx, { error: sentence(changed.error.message), status: 409 });
  return refusal(ctx, changed.error);
}

/** `GET /portal/members/:id/remove`: asks before removing. */
export async function confirmRemoval(ctx: SignedIn, id: string): Promise<CoreHttpResponse> {
  const member = (await ctx.deps.admin.members.listMembers(ctx.actor, ctx.organization.organization.id))
    .unwrapOr([] as MemberView[])
    .find((m) => m.id === id);
  if (!member) return errorPage(ctx, { status: 404, message: 'No such member in your organization.' });
  if (!mayChange(ctx, member))
    return errorPage(ctx, { status: 403, message: `Your role (${ctx.member.role}) cannot remove this member.` });
  const body = html`<p>
      Remove <strong>${member.email}</strong> (${member.role}) from the organization? Their sessions end at once.
    </p>
    <form method="post" action="${MEMBERS}/${member.id}/remove" class="inline">
      ${csrfField(ctx.csrf)}
      <button type="submit" class="danger">Remove member</button>
      <a href="${MEMBERS}">Cancel</a>
    </form>`;
  return layout(ctx, { title: 'Remove member', section: 'members', body });
}

/** `POST /portal/members/:id/remove`: removing oneself signs out. */
export async function removeMember(ctx: SignedIn, id: string): Promise<CoreHttpResponse> {
  const removed = await ctx.deps.admin.members.removeMember(ctx.actor, ctx.organization.organization.id, id);
  if (removed.isErr())
    return removed.error.code === 'conflict'
      ? membersPage(ctx, { error: sentence(removed.error.message), status: 409 })
      : refusal(ctx, removed.error);
  return redirect(id === ctx.member.id ? `${PORTAL_PATH}/sign-in?done=removed` : `${MEMBERS}?done=removed`);
}
