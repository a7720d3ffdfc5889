import { OverallState, type CoreHttpResponse, type UsageResponse } from '@tron-safety/core';
import type { SignedIn } from '../context.js';
import { formatNumber } from '../format.js';
import { html, type Html } from '../html.js';
import { refusal } from './errors.js';
import { layout } from './layout.js';

const STATES = Object.keys(OverallState.keys) as OverallState[];

const PERIODS: [number, string][] = [
  [1, 'Last 24 hours'],
  [7, 'Last 7 days'],
  [30, 'Last 30 days'],
];

function counters(title: string, recent: UsageResponse['recent']): Html {
  const id = `period-${recent.days}`;
  const states = STATES.map(
    (state) =>
      html`<dt>${state}</dt>
        <dd>${formatNumber(recent.by_overall_state[state] ?? 0)}</dd>`,
  );
  return html`<section class="card" aria-labelledby="${id}">
    <h2 id="${id}">${title}</h2>
    <dl class="facts">
      <dt>Requests</dt>
      <dd>${formatNumber(recent.requests)}</dd>
      <dt>Billable</dt>
      <dd>${formatNumber(recent.billable)}</dd>
      <dt>Limited data</dt>
      <dd>${formatNumber(recent.limited_data)}</dd>
      <dt>Errors</dt>
      <dd>${formatNumber(recent.errors)}</dd>
      <dt>Average latency</dt>
      <dd>${recent.average_latency_ms === null ? '–' : `${formatNumber(recent.average_latency_ms)} ms`}</dd>
      ${states}
    </dl>
  </section>`;
}

/** `GET /portal/usage`: the 1/7/30-day counters of the usage report (every role may see them). */
export async function usagePage(ctx: SignedIn): Promise<CoreHttpResponse> {
  const organizationId = ctx.organization.organization.id;
  const reports = await Promise.all(PERIODS.map(([days]) => ctx.deps.admin.usage(ctx.actor, organizationId, days)));
  const refused = reports.find((r) => r.isErr());
  if (refused?.isErr()) return refusal(ctx, refused.error);
  const cards = reports.map((r, i) => counters(PERIODS[i]![1], r._unsafeUnwrap().recent));
  const body = html`<p>
      Checks of every key of the organization, counted when they finish (idempotent replays are not counted again).
      Billable checks are those with complete coverage.
    </p>
    <div class="cards">${cards}</div>`;
  return layout(ctx, { title: 'Usage', section: 'usage', body });
}
