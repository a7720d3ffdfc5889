import type { ProviderCall, ProviderCallEnd } from '@tron-safety/core';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DataStatus } from './data-health.js';

/** Paths that are a route of their own in the metrics; every other path counts as `other` (bounded labels). */
const ROUTES = new Set(['/', '/v1/transaction/check', '/v1/usage', '/v1/openapi.json', '/v1/status']);
export const routeOf = (path: string) => (ROUTES.has(path) ? path : 'other');

const SECONDS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 12, 15];

export interface MetricsSources {
  /** Checks executing in this process. */
  checksInFlight: () => number;
  /** Quota reservations this process holds. */
  reservationsOutstanding: () => number;
  /** The providers' data (sanctions lists, registry tokens); null until the providers exist. */
  data: () => DataStatus | null;
}

/** One answered request, as the metrics count it. */
export interface AnsweredRequest {
  method: string;
  path: string;
  status: number;
  errorCode: string | undefined;
  /** For a 200 check: its overall state. */
  overallState: string | undefined;
  durationMs: number;
}

/** The host's Prometheus metrics (`/metrics` of the operations listener). */
export class HostMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'route' | 'method' | 'status' | 'code'>;
  readonly #checkSeconds: Histogram<'outcome'>;
  readonly #callSeconds: Histogram<'provider' | 'call' | 'outcome'>;
  readonly #callFailures: Counter<'provider' | 'call' | 'outcome'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.#requests = new Counter({
      name: 'tron_safety_http_requests_total',
      help: 'Answered API requests by route, method, status and error code (none for a success)',
      labelNames: ['route', 'method', 'status', 'code'],
      registers,
    });
    this.#checkSeconds = new Histogram({
      name: 'tron_safety_check_duration_seconds',
      help: 'Time to answer POST /v1/transaction/check, by overall state or error code',
      labelNames: ['outcome'],
      buckets: SECONDS,
      registers,
    });
    this.#callSeconds = new Histogram({
      name: 'tron_safety_provider_call_duration_seconds',
      help: 'Provider HTTP calls (java-tron nodes, risk vendors) by provider, call and outcome',
      labelNames: ['provider', 'call', 'outcome'],
      buckets: SECONDS,
      registers,
    });
    this.#callFailures = new Counter({
      name: 'tron_safety_provider_call_failures_total',
      help: 'Provider HTTP calls that failed, by provider, call and how (timeout, aborted, network, status, decode, node_error)',
      labelNames: ['provider', 'call', 'outcome'],
      registers,
    });
    gauge('tron_safety_checks_in_flight', 'Checks executing in this process', sources.checksInFlight, registers);
    gauge(
      'tron_safety_quota_reservations_outstanding',
      'Quota reservations this process holds (reserved, not yet committed or released)',
      sources.reservationsOutstanding,
      registers,
    );
    dataGauges(sources, registers);
  }

  answered(request: AnsweredRequest): void {
    const code = request.errorCode ?? 'none';
    this.#requests.inc({ route: routeOf(request.path), method: request.method, status: String(request.status), code });
    if (request.path === '/v1/transaction/check' && request.method === 'POST') {
      this.#checkSeconds.observe({ outcome: request.overallState ?? code }, request.durationMs / 1000);
    }
  }

  providerCall(call: ProviderCall, end: ProviderCallEnd): void {
    const labels = { provider: call.provider, call: call.call, outcome: end.outcome };
    this.#callSeconds.observe(labels, end.durationMs / 1000);
    if (end.outcome !== 'ok') this.#callFailures.inc(labels);
  }
}

/** The gauges of the data behind the answers: each sanctions list's age, the registry tokens' confirmation. */
function dataGauges({ data }: MetricsSources, registers: Registry[]): void {
  const knownTokens = () => data()?.chain().knownTokens ?? [];
  new Gauge({
    name: 'tron_safety_sanctions_list_age_seconds',
    help: 'Age of each sanctions list screened (list: ofac, or a list file), since it was last known current',
    labelNames: ['list'],
    registers,
    collect() {
      this.reset();
      for (const { name, asOf } of data()?.sanctions().lists ?? []) this.set({ list: name }, ageSeconds(asOf));
    },
  });
  gauge(
    'tron_safety_token_registry_age_seconds',
    'Age of the oldest registry token data checks are served (its last confirmation by the chain, or the registry date before the first)',
    () => {
      const served = knownTokens().flatMap((t) => (t.servedAsOf ? [t.servedAsOf.getTime()] : []));
      return served.length === 0 ? Number.NaN : ageSeconds(new Date(Math.min(...served)));
    },
    registers,
  );
  gauge(
    'tron_safety_token_registry_stale_tokens',
    'Registry tokens the chain contradicts or has not confirmed in time',
    () => knownTokens().filter((t) => t.stale).length,
    registers,
  );
}

const ageSeconds = (asOf: Date) => Math.max(0, (Date.now() - asOf.getTime()) / 1000);

function gauge(name: string, help: string, read: () => number, registers: Registry[]): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(read());
    },
  });
}
