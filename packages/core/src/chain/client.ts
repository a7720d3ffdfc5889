import { decode, formatDecodeError } from '@tron-safety/codec';
import type * as t from 'io-ts';
import { err, errAsync, ok, okAsync, ResultAsync, type Result } from 'neverthrow';
import { Pool, type Dispatcher } from 'undici';
import { withDefaults } from '../defaults.js';
import { observeCall, type ProviderCallObserver, type ProviderCallOutcome } from './call-observer.js';
import { rethrowProgrammerError } from './programmer-error.js';
import { NodeGenesisBlock, NodeInfo } from './network-codecs.js';
import { NodeAssetIssue, NodeBlock, NodeConstantCall, NodeTransaction, NodeTransactionInfo } from './node-codecs.js';

/** Which java-tron service a call goes to: full node `/wallet/*` or solidity node `/walletsolidity/*`. */
export type TronNode = 'full' | 'solidity';

/** Why a node gave no usable answer: a failed call, or a node whose network is not established. */
export type NodeCallError =
  | NodeCallFailure
  /**
   * The node answered, but it is not known to serve the expected network (`network.ts`): it serves
   * another (`wrong_network`), or that could not be established yet (`unverified`). Never a call's
   * outcome; `detail` names the node.
   */
  | { kind: 'untrusted_node'; node: TronNode; reason: 'wrong_network' | 'unverified'; detail: string };

/** How one call failed. */
export type NodeCallFailure =
  /** The caller's signal fired (request deadline): do not retry, stop. */
  | { kind: 'aborted' }
  /** No answer within the per-call timeout, after the retries the deadline allowed. */
  | { kind: 'timeout'; node: TronNode; endpoint: string }
  | { kind: 'network'; node: TronNode; endpoint: string; detail: string }
  | { kind: 'http_status'; node: TronNode; endpoint: string; status: number }
  /** java-tron's 200 `{"Error": …}` (business error, rate limit, disabled API). */
  | { kind: 'node_error'; node: TronNode; endpoint: string; message: string }
  /** Not JSON (HTML, truncated), too large, or not the shape the codec expects. */
  | { kind: 'bad_response'; node: TronNode; endpoint: string; detail: string };

export function describeNodeError(error: NodeCallError): string {
  switch (error.kind) {
    case 'aborted':
      return 'aborted';
    case 'timeout':
      return `${error.node} node ${error.endpoint}: timeout`;
    case 'network':
      return `${error.node} node ${error.endpoint}: network error (${error.detail})`;
    case 'http_status':
      return `${error.node} node ${error.endpoint}: HTTP ${error.status}`;
    case 'node_error':
      return `${error.node} node ${error.endpoint}: node error (${error.message.slice(0, 200)})`;
    case 'bad_response':
      return `${error.node} node ${error.endpoint}: bad response (${error.detail})`;
    case 'untrusted_node':
      return error.detail;
  }
}

export interface RetryPolicy {
  /** Total attempts per call, first included; default 3. */
  attempts: number;
  /** Full-jitter exponential backoff: a random wait in [0, min(maxDelayMs, baseDelayMs·2^n)]. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 50, maxDelayMs: 500 };

export interface TronNodeClientOptions {
  fullNodeUrl: string;
  /** Default: the full node URL (TronGrid serves both). */
  solidityNodeUrl?: string;
  /** Sent as `TRON-PRO-API-KEY` to the full node, and to the solidity node on its origin (`nodeApiKeys`). */
  apiKey?: string;
  /** Sent as `TRON-PRO-API-KEY` to the solidity node; default `apiKey` when that node is on the full node's origin. */
  solidityApiKey?: string;
  /** Per-attempt timeout (ms); default 2500. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Connections per origin; default 16. */
  connections?: number;
  /** Larger answers are a bad response; default 4 MiB. */
  maxResponseBytes?: number;
  /** Sees every attempt (provider `tron_full_node` / `tron_solidity_node`, call = endpoint) and how it ended. */
  onCall?: ProviderCallObserver;
}

/**
 * The `TRON-PRO-API-KEY` each node is sent. A key is a credential for one provider: `apiKey` goes to the
 * full node, and to the solidity node only on the same origin (TronGrid serves both); a solidity node
 * elsewhere gets `solidityApiKey` or nothing, never the full node's key.
 */
export function nodeApiKeys(
  options: Pick<TronNodeClientOptions, 'fullNodeUrl' | 'solidityNodeUrl' | 'apiKey' | 'solidityApiKey'>,
): Record<TronNode, string | undefined> {
  const solidityOrigin = new URL(options.solidityNodeUrl ?? options.fullNodeUrl).origin;
  const sameOrigin = solidityOrigin === new URL(options.fullNodeUrl).origin;
  return { full: options.apiKey, solidity: options.solidityApiKey ?? (sameOrigin ? options.apiKey : undefined) };
}

/** Answer of a lookup where java-tron's `{}` means "not found". */
export type Found<A> = A | null;

const OUTCOME: Record<NodeCallFailure['kind'], ProviderCallOutcome> = {
  aborted: 'aborted',
  timeout: 'timeout',
  network: 'network',
  http_status: 'status',
  node_error: 'node_error',
  bad_response: 'decode',
};

const RETRYABLE_STATUS = (status: number) => status === 429 || status >= 500;

const abortableSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** An undici response body as UTF-8 text, or null (and the stream destroyed) once it passes `maxBytes`. */
export async function readBodyText(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * java-tron HTTP client: one keep-alive undici `Pool` per origin, JSON POSTs with visible=false,
 * a per-attempt timeout combined with the caller's signal, and bounded retries with full jitter on
 * 5xx/429/network errors/timeouts while the caller's signal has not fired and the call's deadline
 * leaves room for a whole attempt. Every answer is decoded
 * through an io-ts codec; nothing the node sends can make a call throw (a bug rejects).
 */
export class TronNodeClient {
  private readonly pools = new Map<string, Pool>();
  private readonly bases: Record<TronNode, { origin: string; prefix: string }>;
  /** Per-attempt timeout (ms). */
  readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly maxResponseBytes: number;
  private readonly headers: Record<TronNode, Record<string, string>>;
  private readonly connections: number;
  private readonly onCall: ProviderCallObserver | undefined;

  constructor(options: TronNodeClientOptions) {
    const parse = (url: string, node: TronNode) => {
      const u = new URL(url);
      return {
        origin: u.origin,
        prefix: `${u.pathname.replace(/\/+$/, '')}/${node === 'full' ? 'wallet' : 'walletsolidity'}/`,
      };
    };
    this.bases = {
      full: parse(options.fullNodeUrl, 'full'),
      solidity: parse(options.solidityNodeUrl ?? options.fullNodeUrl, 'solidity'),
    };
    this.timeoutMs = options.timeoutMs ?? 2500;
    this.retry = withDefaults(DEFAULT_RETRY, options.retry);
    this.maxResponseBytes = options.maxResponseBytes ?? 4 * 1024 * 1024;
    this.connections = options.connections ?? 16;
    this.onCall = options.onCall;
    const keys = nodeApiKeys(options);
    const headers = (key: string | undefined) => ({
      'content-type': 'application/json',
      accept: 'application/json',
      ...(key ? { 'TRON-PRO-API-KEY': key } : {}),
    });
    this.headers = { full: headers(keys.full), solidity: headers(keys.solidity) };
  }

  getTransactionById(node: TronNode, txId: string, signal: AbortSignal, deadline?: number) {
    const body = { value: txId, visible: false };
    const spec = { node, endpoint: 'gettransactionbyid', body, codec: NodeTransaction, emptyIsNotFound: true };
    return this.call(spec, signal, deadline);
  }

  getTransactionInfoById(node: TronNode, txId: string, signal: AbortSignal, deadline?: number) {
    const body = { value: txId, visible: false };
    const spec = { node, endpoint: 'gettransactioninfobyid', body, codec: NodeTransactionInfo, emptyIsNotFound: true };
    return this.call(spec, signal, deadline);
  }

  getNowBlock(node: TronNode, signal: AbortSignal, deadline?: number): ResultAsync<NodeBlock, NodeCallError> {
    const spec = { node, endpoint: 'getnowblock', body: {}, codec: NodeBlock, emptyIsNotFound: false };
    return this.call(spec, signal, deadline).andThen((block) =>
      block === null ? errAsync(bad(spec, 'empty block')) : okAsync(block),
    );
  }

  /** Block `num`; null when the node does not have it (`{}`). Only its id is read (see `NodeGenesisBlock`). */
  getBlockId(node: TronNode, num: number, signal: AbortSignal, deadline?: number) {
    const spec = { node, endpoint: 'getblockbynum', body: { num }, codec: NodeGenesisBlock, emptyIsNotFound: true };
    return this.call(spec, signal, deadline);
  }

  getNodeInfo(node: TronNode, signal: AbortSignal, deadline?: number) {
    const spec = { node, endpoint: 'getnodeinfo', body: {}, codec: NodeInfo, emptyIsNotFound: false };
    return this.call(spec, signal, deadline);
  }

  /** A constant (read-only) call of a no-argument method (`selector`, e.g. `decimals()`) of contract `contractHex41`. */
  triggerConstantContract(
    node: TronNode,
    method: { contractHex41: string; selector: string },
    signal: AbortSignal,
    deadline?: number,
  ) {
    // Any valid owner works for a constant call: the contract itself always exists as an address.
    const body = {
      owner_address: method.contractHex41,
      contract_address: method.contractHex41,
      function_selector: method.selector,
      visible: false,
    };
    const spec = { node, endpoint: 'triggerconstantcontract', body, codec: NodeConstantCall, emptyIsNotFound: false };
    return this.call(spec, signal, deadline);
  }

  getAssetIssueById(node: TronNode, id: string, signal: AbortSignal, deadline?: number) {
    const body = { value: id, visible: false };
    const spec = { node, endpoint: 'getassetissuebyid', body, codec: NodeAssetIssue, emptyIsNotFound: true };
    return this.call(spec, signal, deadline);
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
    this.pools.clear();
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: this.connections, keepAliveTimeout: 30_000, pipelining: 1 });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /**
   * `deadline` (a `performance.now()` time, default none) ends the call as a timeout: an attempt
   * never runs past it, and a retry starts only when a whole attempt (the per-call timeout) still
   * fits after its backoff, so a slow node cannot spend the time a fallback or a later round needs.
   * A bug (a TypeError…) rejects the promise: it is never typed as the node's failure.
   */
  private call<A>(spec: NodeCall<A>, signal: AbortSignal, deadline = Number.POSITIVE_INFINITY) {
    return new ResultAsync(this.callWithRetries(spec, signal, deadline));
  }

  private async callWithRetries<A>(
    spec: NodeCall<A>,
    signal: AbortSignal,
    deadline: number,
  ): Promise<Result<Found<A>, NodeCallError>> {
    const { node, endpoint } = spec;
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) return err({ kind: 'aborted' });
      const left = deadline - performance.now();
      if (left <= 0) return err({ kind: 'timeout', node, endpoint });
      const ended = observeCall(this.onCall, { provider: `tron_${node}_node`, call: endpoint });
      const result = await this.attempt(spec, signal, Math.min(this.timeoutMs, left));
      if (result.isOk()) {
        ended('ok');
        return ok(result.value);
      }
      const { error, retryable } = result.error;
      ended(OUTCOME[error.kind], error.kind === 'http_status' ? error.status : undefined);
      if (signal.aborted) return err({ kind: 'aborted' });
      if (!retryable || attempt + 1 >= this.retry.attempts) return err(error);
      const cap = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
      const wait = Math.random() * cap;
      if (performance.now() + wait + this.timeoutMs > deadline) return err(error);
      await abortableSleep(wait, signal);
    }
  }

  /** One POST and its answer, within `timeoutMs` and the caller's signal. */
  private async attempt<A>(
    spec: NodeCall<A>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<Result<Found<A>, AttemptFailure>> {
    const { node, endpoint } = spec;
    const base = this.bases[node];
    // One controller per attempt, fired by the caller's signal or the attempt's timer; both are
    // released when the attempt ends (cheaper than AbortSignal.any, and no timer outlives a call).
    const controller = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const res = await this.pool(base.origin).request({
        method: 'POST',
        path: base.prefix + endpoint,
        headers: this.headers[node],
        body: JSON.stringify(spec.body),
        signal: controller.signal,
      });
      const text = await readBodyText(res.body, this.maxResponseBytes);
      if (text === null) return fail(bad(spec, 'response too large'), false);
      if (res.statusCode !== 200) {
        return fail({ kind: 'http_status', node, endpoint, status: res.statusCode }, RETRYABLE_STATUS(res.statusCode));
      }
      return readAnswer(spec, text).mapErr((error) => ({ error, retryable: false }));
    } catch (e) {
      rethrowProgrammerError(e);
      if (signal.aborted) return fail({ kind: 'aborted' }, false);
      if (timedOut) return fail({ kind: 'timeout', node, endpoint }, true);
      const detail =
        e instanceof Error ? ('code' in e && typeof e.code === 'string' ? `${e.code}: ` : '') + e.message : String(e);
      return fail({ kind: 'network', node, endpoint, detail }, true);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }
}

/** What one call asks: the node, its endpoint and body, and how to read its answer. */
interface NodeCall<A> {
  node: TronNode;
  endpoint: string;
  body: object;
  codec: t.Decoder<unknown, A>;
  /** java-tron answers `{}` for a lookup that found nothing. */
  emptyIsNotFound: boolean;
}

/** A failed attempt, and whether another attempt may answer differently. */
type AttemptFailure = { error: NodeCallFailure; retryable: boolean };

const fail = (error: NodeCallFailure, retryable: boolean) => err<never, AttemptFailure>({ error, retryable });

const bad = ({ node, endpoint }: Pick<NodeCall<unknown>, 'node' | 'endpoint'>, detail: string): NodeCallFailure => ({
  kind: 'bad_response',
  node,
  endpoint,
  detail,
});

/** A 200 answer's body: JSON, not java-tron's `{"Error": …}`, and the shape the call's codec expects. */
function readAnswer<A>(spec: NodeCall<A>, text: string): Result<Found<A>, NodeCallFailure> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return err(bad(spec, text.trimStart().startsWith('<') ? 'HTML instead of JSON' : 'not JSON'));
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return err(bad(spec, 'not a JSON object'));
  if ('Error' in json) {
    const { node, endpoint } = spec;
    return err({ kind: 'node_error', node, endpoint, message: String((json as { Error: unknown }).Error) });
  }
  if (Object.keys(json).length === 0) return spec.emptyIsNotFound ? ok(null) : err(bad(spec, 'empty answer'));
  return decode(spec.codec, json).mapErr((e) => bad(spec, `unexpected shape (${formatDecodeError(e)})`));
}
