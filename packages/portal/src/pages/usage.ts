import { OverallState, type CoreHttpResponse, type LatencyStatistics, type UsageDay } from '@tron-safety/core';
import { MIN_LATENCY_SAMPLES, summarizeUsageDays } from '@tron-safety/core/internal';
import type { SignedIn } from '../context.js';
import { formatNumber } from '../format.js';
import { html, type Html } from '../html.js';
import { refusal } from './errors.js';
import { layout } from './layout.js';
import { SERIES, seriesValue, usageChart } from './usage-chart.js';

const STATES = Object.keys(OverallState.keys) as OverallState[];

/** The counters' periods: the last N UTC days, today (since 00:00 UTC) included. */
const PERIODS: [number, string][] = [
  [1, 'Today (UTC)'],
  [7, 'Last 7 days'],
  [30, 'Last 30 days'],
];

function counters(title: string, days: number, buckets: readonly UsageDay[]): Html {
  const recent = summarizeUsageDays(buckets.slice(-days));
  const id = `period-${days}`;
  const states = STATES.map(
    (state) =>
      html`<dt>${state}</dt>
        <dd>${formatNumber(recent.byOverallState[state] ?? 0)}</dd>`,
  );
  return html`<section class="card" aria-labelledby="${id}">
    <h2 id="${id}">${title}</h2>
    <dl class="facts">
      <dt>Requests</dt>
      <dd>${formatNumber(recent.requests)}</dd>
      <dt>Billable</dt>
      <dd>${formatNumber(recent.billable)}</dd>
      <dt>Limited data</dt>
      <dd>${formatNumber(recent.limitedData)}</dd>
      <dt>Errors</dt>
      <dd>${formatNumber(recent.errors)}</dd>
      <dt>Average latency</dt>
      <dd>${recent.averageLatencyMs === null ? '–' : `${formatNumber(recent.averageLatencyMs)} ms`}</dd>
      ${states}
    </dl>
  </section>`;
}

/** The chart's numbers as a table, newest day first, with the totals. */
function dailyTable(days: readonly UsageDay[]): Html {
  const cells = (d: Pick<UsageDay, 'requests' | 'billable'>, parts: number[]) =>
    [d.requests, d.billable, ...parts].map((n) => html`<td>${formatNumber(n)}</td>`);
  const rows = [...days].reverse().map(
    (d) =>
      html`<tr>
        <th scope="row">${d.day}</th>
        ${cells(
          d,
          SERIES.map((s) => seriesValue(d, s.key)),
        )}
      </tr>`,
  );
  const total = summarizeUsageDays(days);
  const totals = SERIES.map((s) => (s.key === 'errors' ? total.errors : (total.byOverallState[s.key] ?? 0)));
  return html`<table class="numbers">
    <caption>
      Checks per UTC day, newest first
    </caption>
    <thead>
      <tr>
        ${['Day (UTC)', 'Requests', 'Billable', ...SERIES.map((s) => s.label)].map((c) => html`<th scope="col">${c}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
    <tfoot>
      <tr>
        <th scope="row">Total</th>
        ${cells(total, totals)}
      </tr>
    </tfoot>
  </table>`;
}

/** p50/p95 only from `MIN_LATENCY_SAMPLES` completed checks in the last 30 days; otherwise why not. */
function latency(stats: LatencyStatistics): Html {
  const body =
    stats.p50Ms === null || stats.p95Ms === null
      ? html`<p id="latency-status">
          Not shown yet: p50 and p95 latency need at least ${MIN_LATENCY_SAMPLES} completed checks in the last 30 days,
          and there ${stats.samples === 1 ? 'is' : 'are'} ${formatNumber(stats.samples)} so far.
        </p>`
      : html`<dl class="facts">
            <dt>p50 (median)</dt>
            <dd>${formatNumber(stats.p50Ms)} ms</dd>
            <dt>p95</dt>
            <dd>${formatNumber(stats.p95Ms)} ms</dd>
          </dl>
          <p id="latency-status" class="hint">
            From the ${formatNumber(stats.samples)} checks completed in the last 30 days (errors included, replays not),
            estimated from daily histograms to within about 12 %.
          </p>`;
  return html`<section aria-labelledby="latency">
    <h2 id="latency">Latency, last 30 days</h2>
    ${body}
  </section>`;
}

/**
 * `GET /portal/usage` (every role): the 1/7/30-day counters, the chart of daily buckets with its
 * table, and p50/p95 latency; all from one read of the last 30 days' buckets.
 */
export async function usagePage(ctx: SignedIn): Promise<CoreHttpResponse> {
  const stats = await ctx.deps.admin.usageStatistics(ctx.actor, ctx.organization.organization.id);
  if (stats.isErr()) return refusal(ctx, stats.error);
  const { days } = stats.value;
  const body = html`<p>
      Checks of every key of the organization and of this portal, counted when they finish (idempotent replays are not
      counted again). Billable checks are those with complete coverage. Days are UTC calendar days.
    </p>
    <div class="cards">${PERIODS.map(([n, title]) => counters(title, n, days))}</div>
    <section aria-labelledby="daily">
      <h2 id="daily">Daily checks, last 30 days</h2>
      ${usageChart(days)} ${dailyTable(days)}
    </section>
    ${latency(stats.value.latency)}`;
  return layout(ctx, { title: 'Usage', section: 'usage', body });
}
