import type { CoreHttpResponse, UsageResponse } from '@tron-safety/core';
import type { SignedIn } from '../context.js';
import { formatNumber, formatTime } from '../format.js';
import { html, type Html } from '../html.js';
import { refusal } from './errors.js';
import { layout } from './layout.js';

/** This month's quota as a bar: used, reserved, remaining (an SVG: no inline style under the CSP). */
export function quotaBar(period: UsageResponse['period']): Html {
  const total = Math.max(period.limit, period.used + period.reserved, 1);
  const width = (n: number) => ((n / total) * 1000).toFixed(1);
  const label = `${formatNumber(period.used)} used, ${formatNumber(period.reserved)} reserved, ${formatNumber(period.remaining)} remaining of ${formatNumber(period.limit)}`;
  return html`<svg
      class="quota-bar"
      viewBox="0 0 1000 28"
      preserveAspectRatio="none"
      role="img"
      aria-label="Quota: ${label}"
    >
      <rect class="remaining" x="0" y="0" width="1000" height="28"></rect>
      <rect class="used" x="0" y="0" width="${width(period.used)}" height="28"></rect>
      <rect class="reserved" x="${width(period.used)}" y="0" width="${width(period.reserved)}" height="28"></rect>
    </svg>
    <ul class="legend">
      <li><span class="swatch used"></span>Used <strong>${formatNumber(period.used)}</strong></li>
      <li>
        <span class="swatch reserved"></span>Reserved <strong>${formatNumber(period.reserved)}</strong> (checks running
        now)
      </li>
      <li>
        <span class="swatch remaining"></span>Remaining <strong>${formatNumber(period.remaining)}</strong> of
        ${formatNumber(period.limit)}
      </li>
    </ul>`;
}

function planOf(report: UsageResponse): string {
  return report.plan
    ? `${report.plan.name} (${report.plan.code}, version ${report.plan.version})`
    : 'Custom entitlements';
}

/** `GET /portal/overview`: plan, limits and this month's quota. */
export async function overviewPage(ctx: SignedIn): Promise<CoreHttpResponse> {
  const { organization } = ctx.organization;
  const usage = await ctx.deps.admin.usage(ctx.actor, organization.id, 1);
  if (usage.isErr()) return refusal(ctx, usage.error);
  const report = usage.value;
  const body = html`${organization.status === 'suspended' && html`<p class="problem" role="alert">This organization is suspended: API requests answer 403 <code>tenant_suspended</code>.</p>`}
    <section aria-labelledby="plan">
      <h2 id="plan">Plan and limits</h2>
      <dl class="facts">
        <dt>Organization</dt>
        <dd>${organization.name} <span class="muted">(${organization.id})</span></dd>
        <dt>Plan</dt>
        <dd>${planOf(report)}</dd>
        <dt>Requests per minute</dt>
        <dd>${formatNumber(report.limits.rate_limit_per_minute)}</dd>
        <dt>Concurrent checks</dt>
        <dd>${formatNumber(report.limits.max_concurrent_requests)}</dd>
        <dt>Monthly quota</dt>
        <dd>${formatNumber(report.period.limit)} complete checks</dd>
        <dt>Networks</dt>
        <dd>${report.limits.enabled_networks.join(', ') || 'none'}</dd>
      </dl>
    </section>
    <section aria-labelledby="quota">
      <h2 id="quota">This month's quota</h2>
      ${quotaBar(report.period)}
      <p class="hint">
        One unit per check with complete coverage, shared by every key of the organization. The period is the UTC
        calendar month: it resets ${formatTime(new Date(report.period.end))}.
      </p>
    </section>`;
  return layout(ctx, { title: 'Overview', section: 'overview', body });
}
