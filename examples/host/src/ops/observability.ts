import type {
  ApiKeyStore,
  CoreHttpRequest,
  CoreHttpResponse,
  ProviderCallObserver,
  SafetyStores,
} from '@tron-safety/core';
import type { RequestObserver } from '../log.js';
import type { DataStatus } from './data-health.js';
import { keyIdentities } from './key-identity.js';
import { HostMetrics } from './metrics.js';
import { countingReservations } from './quota-count.js';
import { RequestTraces } from './request-trace.js';

const CHECK_PATH = '/v1/transaction/check';

export interface Observability {
  metrics: HostMetrics;
  /** Feeds the provider-call metrics and the 503/504 log fields; give it to the chain and risk providers. */
  onProviderCall: ProviderCallObserver;
  /** The stores with quota reservations counted (build the service on these). */
  counted(stores: SafetyStores): SafetyStores;
  /** The request observer of the log line, identifying callers through `apiKeys`. */
  requests(apiKeys: ApiKeyStore): RequestObserver;
  /** The providers' data the gauges read (sanctions list ages, registry tokens); until then they read none. */
  watch(data: DataStatus): void;
}

/** The host's observability: metrics, the organization and key behind a request, and what failed for a 503/504. */
export function createObservability(): Observability {
  const traces = new RequestTraces();
  let checksInFlight = 0;
  const late: { outstanding: () => number; data: DataStatus | null } = { outstanding: () => 0, data: null };
  const metrics = new HostMetrics({
    checksInFlight: () => checksInFlight,
    reservationsOutstanding: () => late.outstanding(),
    data: () => late.data,
  });
  const answer = async (request: CoreHttpRequest, handle: () => Promise<CoreHttpResponse>) => {
    const isCheck = request.path === CHECK_PATH && request.method === 'POST';
    if (isCheck) checksInFlight++;
    const traced = traces.run(handle);
    try {
      return { response: await traced.result, calls: traced.calls };
    } finally {
      if (isCheck) checksInFlight--;
    }
  };
  return {
    metrics,
    onProviderCall: (call) => {
      const traceEnd = traces.started(call);
      return (end) => {
        metrics.providerCall(call, end);
        traceEnd?.(end);
      };
    },
    watch(watched) {
      late.data = watched;
    },
    counted(stores) {
      const counting = countingReservations(stores.checks);
      late.outstanding = counting.outstanding;
      return { ...stores, checks: counting.checks };
    },
    requests(apiKeys) {
      const identify = keyIdentities(apiKeys);
      return {
        async observe(request, handle) {
          const started = performance.now();
          const { response, calls } = await answer(request, handle);
          const body = response.status >= 400 || request.path === CHECK_PATH ? parseBody(response.body) : null;
          const errorCode = response.status >= 400 ? body?.error?.code : undefined;
          const overallState = response.status === 200 ? body?.overall_state : undefined;
          const durationMs = performance.now() - started;
          const { method, path } = request;
          metrics.answered({ method, path, status: response.status, errorCode, overallState, durationMs });
          // A refused key is not looked up (nor shown): it may be anything a caller pasted.
          const caller = response.status === 401 ? null : await identify(request.headers['x-api-key']);
          const fields: Record<string, unknown> = {
            ...caller,
            ...(overallState !== undefined ? { overall_state: overallState, coverage: body?.coverage } : {}),
            ...(response.status === 503 || response.status === 504 ? { provider_calls: calls() } : {}),
          };
          return { response, fields };
        },
      };
    },
  };
}

interface ParsedBody {
  error?: { code?: string };
  overall_state?: string;
  coverage?: string;
}

function parseBody(body: string): ParsedBody | null {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as ParsedBody) : null;
  } catch {
    return null;
  }
}
