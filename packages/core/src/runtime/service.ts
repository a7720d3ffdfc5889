import type {
  ErrorResponse,
  TransactionCheckResponse,
  TransactionCheckRequest,
  UsageResponse,
} from '../contract/models.js';
import { sameNetwork, TRON_MAINNET } from '../chain/network.js';
import type { SafetyStores } from '../stores/index.js';
import { createAdminApi, type AdminApi } from './admin.js';
import { checkAs, handleCheck } from './check.js';
import {
  RequestScope,
  resolveOptions,
  STOPPED,
  type RuntimeContext,
  type SafetyProviders,
  type SafetyServiceOptions,
} from './context.js';
import type { CoreHttpRequest, CoreHttpResponse } from './http.js';
import { requestIdFrom } from './request-id.js';
import { errorBody } from './response.js';
import { TIMED_OUT, withinMs } from './timeout.js';
import { handleUsage } from './usage-report.js';

export const CHECK_PATH = '/v1/transaction/check';
export const USAGE_PATH = '/v1/usage';

/** The typed result of `check`/`usage`: the same status, headers and body `handle` gives. */
export type ServiceResult<T> =
  | { ok: true; status: number; headers: Record<string, string>; body: T; replayed: boolean }
  | { ok: false; status: number; headers: Record<string, string>; body: ErrorResponse; replayed: boolean };

export interface CheckCall {
  apiKey: string;
  /** The request as JSON bytes (validated exactly as over HTTP) or as an object (serialized first). */
  request: Uint8Array | TransactionCheckRequest;
  idempotencyKey?: string;
  requestId?: string;
}

/** A check for an organization the caller has authenticated itself (see `checkAsOrganization`). */
export interface OrganizationCheckCall extends Omit<CheckCall, 'apiKey'> {
  organizationId: string;
}

export interface UsageCall {
  apiKey: string;
  days?: number;
  requestId?: string;
}

export interface SafetyService {
  /** The HTTP-shaped entry point for adapters. Never rejects. */
  handle(req: CoreHttpRequest): Promise<CoreHttpResponse>;
  /** `POST /v1/transaction/check` without HTTP. */
  check(call: CheckCall): Promise<ServiceResult<TransactionCheckResponse>>;
  /**
   * `POST /v1/transaction/check` for an organization the caller has authenticated itself (the
   * portal's signed-in member), through the same path: validation, limits, quota, idempotency and
   * usage are the organization's, shared with its API keys. Not routed: `/v1` authenticates by
   * `X-API-Key` only, so this is reachable from code that holds the service, never from a request.
   */
  checkAsOrganization(call: OrganizationCheckCall): Promise<ServiceResult<TransactionCheckResponse>>;
  /** `GET /v1/usage` without HTTP. */
  usage(call: UsageCall): Promise<ServiceResult<UsageResponse>>;
  admin: AdminApi;
  /** Pauses (true) or resumes business requests: 503 `api_disabled` while paused. */
  setApiDisabled(disabled: boolean): void;
  /** Business requests are refused: paused, or the service is closing. */
  readonly apiDisabled: boolean;
  /** Checks currently executing. */
  readonly inFlight: number;
  /**
   * Graceful shutdown: new requests get 503 `api_disabled`; waits up to `timeoutMs` (default the
   * deadline + 1 s) for in-flight requests, then aborts the rest, which release what they hold.
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

interface Route {
  method: string;
  run: (scope: RequestScope, req: CoreHttpRequest) => Promise<CoreHttpResponse>;
}

const ROUTES: Record<string, Route> = {
  [CHECK_PATH]: { method: 'POST', run: handleCheck },
  [USAGE_PATH]: { method: 'GET', run: handleUsage },
};

/** Headers without the absent ones. */
const headersOf = (fields: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<string, string>;

/** The HTTP shape of a check call (`apiKey` absent for `checkAsOrganization`). */
function checkRequest(call: Omit<CheckCall, 'apiKey'>, apiKey?: string): CoreHttpRequest {
  const { request, idempotencyKey, requestId } = call;
  const body = request instanceof Uint8Array ? request : new TextEncoder().encode(JSON.stringify(request));
  const headers = headersOf({
    'x-api-key': apiKey,
    'idempotency-key': idempotencyKey,
    'x-request-id': requestId,
    'content-type': 'application/json',
  });
  return { method: 'POST', path: CHECK_PATH, query: {}, headers, body };
}

/**
 * Chain and risk providers of one network (absent: mainnet). Risk data of mainnet held against a testnet's
 * transactions would call a testnet token official (TRC10 ids repeat across networks) and its payment CLEAR:
 * a programmer error, thrown.
 */
function assertOneNetwork({ chain, risk }: SafetyProviders): void {
  const read = chain?.network ?? TRON_MAINNET;
  const held = risk.network ?? TRON_MAINNET;
  if (chain !== null && !sameNetwork(read, held)) {
    throw new Error(
      `the chain provider reads TRON ${read.name} but the risk providers are TRON ${held.name}'s: give createRiskProviders the chain provider's network`,
    );
  }
}

/**
 * The service: stores (all state) + providers (chain facts, risk) + options. Framework-free:
 * adapters translate their request into `handle`'s and write its answer back. Throws when the chain and
 * risk providers are of different networks (`assertOneNetwork`).
 */
export function createSafetyService(
  stores: SafetyStores,
  providers: SafetyProviders,
  options: SafetyServiceOptions = {},
): SafetyService {
  assertOneNetwork(providers);
  const resolved = resolveOptions(options);
  const ctx: RuntimeContext = { stores, providers, options: resolved };
  const state: ServiceState = { apiDisabled: options.apiDisabled ?? false, closing: false, inFlight: new Set() };
  const call = async <T>(req: CoreHttpRequest, direct?: Route) =>
    serviceResult<T>(await serve(ctx, state, req, direct));

  return {
    // Every answer leaves through here (`respond` gave it the headers no API answer goes without).
    handle: (req: CoreHttpRequest) => serve(ctx, state, req),
    check: (checkCall) => call(checkRequest(checkCall, checkCall.apiKey)),
    checkAsOrganization({ organizationId, ...checkCall }) {
      const credential = { organizationId };
      return call(checkRequest(checkCall), { method: 'POST', run: (scope, req) => checkAs(scope, credential, req) });
    },
    usage: (usageCall) => call(usageRequest(usageCall)),
    admin: createAdminApi(stores, resolved.now),
    setApiDisabled(disabled: boolean) {
      state.apiDisabled = disabled;
    },
    get apiDisabled() {
      return state.apiDisabled || state.closing;
    },
    get inFlight() {
      return state.inFlight.size;
    },
    async close({ timeoutMs = resolved.deadlineMs + 1000 } = {}) {
      state.closing = true;
      const all = () => Promise.allSettled([...state.inFlight].map((e) => e.done));
      if ((await withinMs(all(), timeoutMs)) === TIMED_OUT) {
        for (const entry of state.inFlight) entry.scope.abort('shutdown');
        await all();
      }
    },
  };
}

/** Whether the service takes work, and the requests it is answering (what `close` waits for). */
interface ServiceState {
  apiDisabled: boolean;
  closing: boolean;
  /** Each with its route's answer, or `STOPPED` at the hard deadline. */
  inFlight: Set<{ scope: RequestScope; done: Promise<CoreHttpResponse | typeof STOPPED> }>;
}

/** Answers `req` by its path's route, or by `direct` (an entry point that is not routed). */
async function serve(
  ctx: RuntimeContext,
  state: ServiceState,
  req: CoreHttpRequest,
  direct?: Route,
): Promise<CoreHttpResponse> {
  const resolved = ctx.options;
  let requestId = '';
  try {
    requestId = requestIdFrom(req.headers['x-request-id'], resolved.generateRequestId);
    const route = direct ?? ROUTES[req.path];
    if (!route) return errorBody(requestId, { kind: 'not_found' });
    if (req.method.toUpperCase() !== route.method)
      return errorBody(requestId, { kind: 'method_not_allowed', allow: route.method });
    if (state.closing) return errorBody(requestId, { kind: 'api_disabled', shuttingDown: true });
    if (state.apiDisabled) return errorBody(requestId, { kind: 'api_disabled' });
    const scope = new RequestScope(ctx, requestId);
    const entry = { scope, done: runUntilHardStop(scope, route, req) };
    state.inFlight.add(entry);
    try {
      const answer = await entry.done;
      if (answer !== STOPPED) return answer;
      // A store that stops answering while a decided result is settled cannot hold the caller (or a
      // graceful shutdown) forever. The work goes on in the background; what it stores is what a
      // retry with the same key replays.
      scope.report(new Error('no answer by the deadline: a store did not answer'), 'hard stop');
      return scope.fail(scope.abortError());
    } finally {
      // Past the hard stop the timer has nothing left to arm: what still runs settles on its own.
      scope.dispose();
      state.inFlight.delete(entry);
    }
  } catch (error) {
    try {
      resolved.onError(error, { requestId, step: 'handle' });
    } catch {
      // The answer below stands whatever the hook does.
    }
    return errorBody(requestId || resolved.generateRequestId(), { kind: 'internal_error' });
  }
}

/** The route's answer, or `STOPPED` at the hard deadline; a route that throws at once frees the scope's timer. */
function runUntilHardStop(
  scope: RequestScope,
  route: Route,
  req: CoreHttpRequest,
): Promise<CoreHttpResponse | typeof STOPPED> {
  try {
    return scope.untilHardStop(route.run(scope, req));
  } catch (error) {
    scope.dispose();
    throw error;
  }
}

/** A typed entry point's answer: the parsed body, an error envelope unless 200. */
function serviceResult<T>(response: CoreHttpResponse): ServiceResult<T> {
  const body = JSON.parse(response.body) as T | ErrorResponse;
  const replayed = response.headers['Idempotent-Replayed'] === 'true';
  return response.status === 200
    ? { ok: true, status: response.status, headers: response.headers, body: body as T, replayed }
    : { ok: false, status: response.status, headers: response.headers, body: body as ErrorResponse, replayed };
}

/** The HTTP shape of a usage call. */
function usageRequest({ apiKey, days, requestId }: UsageCall): CoreHttpRequest {
  return {
    method: 'GET',
    path: USAGE_PATH,
    query: days === undefined ? {} : { days: String(days) },
    headers: headersOf({ 'x-api-key': apiKey, 'x-request-id': requestId }),
    body: new Uint8Array(),
  };
}
