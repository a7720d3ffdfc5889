import type { UsageDay } from '@tron-safety/core';
import { formatNumber } from '../format.js';
import { html, type Html } from '../html.js';

/** The stacked parts of a day's bar, bottom up: its checks by overall state, then its errors (they add up to requests). */
export const SERIES = [
  { key: 'CLEAR', label: 'CLEAR', css: 's-clear' },
  { key: 'REVIEW', label: 'REVIEW', css: 's-review' },
  { key: 'HIGH_RISK', label: 'HIGH_RISK', css: 's-high-risk' },
  { key: 'LIMITED_DATA', label: 'LIMITED_DATA', css: 's-limited-data' },
  { key: 'errors', label: 'Errors', css: 's-errors' },
] as const;

export const seriesValue = (day: UsageDay, key: (typeof SERIES)[number]['key']) =>
  key === 'errors' ? day.errors : (day.byOverallState[key] ?? 0);

// The drawing's coordinate box: the SVG scales to the page's width, text with it.
const WIDTH = 760;
const PLOT = { left: 44, right: 752, top: 12, bottom: 232 };
const HEIGHT = 260;

/** The y axis: four steps of a round size (1, 2 or 5 × 10ⁿ), its top at or above the busiest day. */
function yAxis(max: number): { step: number; top: number } {
  const rough = Math.max(1, max / 4);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough)!;
  return { step, top: step * 4 };
}

function gridLines(scale: (n: number) => number, step: number): Html[] {
  return [0, 1, 2, 3, 4].map((i) => {
    const y = scale(i * step).toFixed(1);
    return html`<line class="grid" x1="${PLOT.left}" x2="${PLOT.right}" y1="${y}" y2="${y}"></line>
      <text class="axis" x="${PLOT.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">
        ${formatNumber(i * step)}
      </text>`;
  });
}

/** One day's stacked bar, with its numbers as a tooltip; a weekly date under it, counted back from today. */
function dayBar(day: UsageDay, i: number, count: number, scale: (n: number) => number): Html {
  const slot = (PLOT.right - PLOT.left) / count;
  const x = PLOT.left + i * slot + slot * 0.17;
  let base = 0;
  const parts = SERIES.map((s) => {
    const value = seriesValue(day, s.key);
    const rect = html`<rect
      class="${s.css}"
      x="${x.toFixed(1)}"
      y="${scale(base + value).toFixed(1)}"
      width="${(slot * 0.66).toFixed(1)}"
      height="${(scale(base) - scale(base + value)).toFixed(1)}"
    ></rect>`;
    base += value;
    return value > 0 ? rect : null;
  });
  const label = (count - 1 - i) % 7 === 0;
  return html`<g>
    <title>${day.day}: ${formatNumber(day.requests)} requests, ${formatNumber(day.billable)} billable</title>
    ${parts}
    ${
      label &&
      html`<text class="axis" x="${(x + slot * 0.33).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">
        ${day.day.slice(5)}
      </text>`
    }
  </g>`;
}

/** The billable checks of each day as a line over the bars, with a point on each day that had checks. */
function billableLine(days: readonly UsageDay[], scale: (n: number) => number): Html {
  const slot = (PLOT.right - PLOT.left) / days.length;
  const points = days.map((d, i) => [PLOT.left + (i + 0.5) * slot, scale(d.billable)] as const);
  return html`<polyline
      class="billable"
      points="${points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')}"
    ></polyline>
    ${points.map(([x, y], i) => days[i]!.requests > 0 && html`<circle class="billable" cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3"></circle>`)}`;
}

/** The chart's text alternative: what it shows in a sentence; the table beside it has every number. */
function summary(days: readonly UsageDay[]): string {
  const total = days.reduce((n, d) => n + d.requests, 0);
  const billable = days.reduce((n, d) => n + d.billable, 0);
  const range = `from ${days[0]!.day} to ${days.at(-1)!.day} (UTC)`;
  if (total === 0) return `No checks ${range}.`;
  const busiest = days.reduce((a, d) => (d.requests > a.requests ? d : a));
  return (
    `${formatNumber(total)} ${total === 1 ? 'check' : 'checks'} ${range}, ${formatNumber(billable)} billable; the busiest day was ` +
    `${busiest.day} with ${formatNumber(busiest.requests)}. The table below lists every day.`
  );
}

/**
 * The daily buckets as an inline SVG (server-rendered; presentation by class only, as the
 * Content-Security-Policy allows no inline style): a bar a day stacked by overall state and
 * errors, the billable checks as a line, and a text alternative naming the table that holds the numbers.
 */
export function usageChart(days: readonly UsageDay[]): Html {
  const { step, top } = yAxis(Math.max(0, ...days.map((d) => d.requests)));
  const scale = (n: number) => PLOT.bottom - (n / top) * (PLOT.bottom - PLOT.top);
  const legend = SERIES.map((s) => html`<li><span class="swatch ${s.css}"></span>${s.label}</li>`);
  return html`<figure class="chart">
    <svg class="usage-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title chart-desc">
      <title id="chart-title">Checks per UTC day, last ${days.length} days</title>
      <desc id="chart-desc">${summary(days)}</desc>
      ${gridLines(scale, step)} ${days.map((d, i) => dayBar(d, i, days.length, scale))} ${billableLine(days, scale)}
    </svg>
    <figcaption>
      <ul class="legend">
        ${legend}
        <li><span class="swatch line billable"></span>Billable</li>
      </ul>
    </figcaption>
  </figure>`;
}
