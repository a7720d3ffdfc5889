import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { requestError, type RequestError } from '../validation/request-error.js';
import { withApiHeaders } from './api-headers.js';
import { requestIdFrom } from './request-id.js';
import { errorBody } from './response.js';
import { type CoreHttpHandler, type CoreHttpRequest, type CoreHttpResponse, MAX_BODY_BYTES } from './http.js';

// What the Express and Koa adapters share: everything between their framework's request and writing
// the answer (`answerNodeRequest`): the body under the spec's 4 KiB limit, the headers with repeats
// kept apart, and the last-resort answer when `handle` itself fails (it should not: the core maps
// every error to the spec's envelope), so a framework never answers with its own HTML.

/** A framework's request as an adapter hands it over. */
export interface NodeAdapterRequest {
  req: IncomingMessage;
  method: string;
  path: string;
  query: CoreHttpRequest['query'];
  /** What a body parser mounted before the adapter left: its raw bytes (if it kept them) and its parsed value. */
  parsed: { raw: unknown; body: unknown };
}

/**
 * The service's answer to a framework request: read the body (or take a parser's leftovers), call
 * `handle`, and turn a rejection into the 500 envelope. `closeConnection`: the body was over the
 * limit, and the rest of it is not worth reading. A body the client abandoned before it was complete
 * never reaches `handle`: nobody is left to read the answer, so nothing may run, be billed or recorded.
 */
export async function answerNodeRequest(
  service: CoreHttpHandler,
  request: NodeAdapterRequest,
): Promise<{ response: CoreHttpResponse; closeConnection: boolean }> {
  const { req, method, path, query, parsed } = request;
  let closeConnection = false;
  try {
    const read = bodyConsumed(req)
      ? (preParsedBody(req, parsed) ?? { body: new Uint8Array(0), bodyTooLarge: false })
      : await readNodeBody(req);
    // Answered for form's sake: the connection is gone, nobody reads it.
    if (read === INCOMPLETE) return { response: bodyRefusedResponse(req, INCOMPLETE_BODY), closeConnection: true };
    const { body, bodyTooLarge } = read;
    closeConnection = bodyTooLarge;
    const response = await service.handle({
      method,
      path,
      query,
      headers: nodeRequestHeaders(req),
      body,
      bodyTooLarge,
    });
    return { response, closeConnection };
  } catch {
    return { response: adapterFailureResponse(), closeConnection };
  }
}

/** What an adapter passes on as `body`/`bodyTooLarge` of a `CoreHttpRequest`. */
export interface ReadBody {
  body: Uint8Array;
  bodyTooLarge: boolean;
}

/** The adapters' default choice of paths for the service: everything under `/v1`. */
export const isV1Path = (path: string) => path === '/v1' || path.startsWith('/v1/');

/** Over the limit: flagged, and the body is one byte longer than the limit, so either signal reaches the core. */
function tooLarge(limit: number): ReadBody {
  return { body: new Uint8Array(limit + 1), bodyTooLarge: true };
}

/** The body declared by `Content-Length` (not chunked) is over the limit: refused without counting what arrived. */
function declaredTooLarge(req: IncomingMessage, limit: number): boolean {
  const declared = Number(req.headers['content-length']);
  return !req.headers['transfer-encoding'] && Number.isFinite(declared) && declared > limit;
}

/** The client went away (aborted, reset) before the body it was sending was complete. */
const INCOMPLETE = 'incomplete';
const INCOMPLETE_BODY = requestError('validation_error', 'request body is incomplete');

/** The 422 for a body refused before `handle` saw it (nothing authenticated or counted), with the caller's valid X-Request-ID. */
export function bodyRefusedResponse(req: IncomingMessage, error: RequestError): CoreHttpResponse {
  return errorBody(requestIdFrom(req.headers['x-request-id']), { kind: 'invalid_request', ...error });
}

/**
 * Reads a Node request body, keeping at most `MAX_BODY_BYTES`. Shared by the Express and Koa
 * adapters so both enforce the spec's 4 KiB limit the same way: a declared `Content-Length` over the
 * limit is refused without reading; otherwise bytes are counted as they arrive. Past the limit
 * what still arrives is discarded until the adapter answers and closes the connection
 * (`Connection: close`), so the client receives the 422 and the server reads no more.
 * Never rejects: a client that aborts or resets mid-body gives `INCOMPLETE`, never the bytes that
 * arrived (a valid JSON prefix of the declared body would otherwise run as a check).
 */
export function readNodeBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<ReadBody | typeof INCOMPLETE> {
  if (declaredTooLarge(req, limit)) {
    req.resume();
    return Promise.resolve(tooLarge(limit));
  }
  // Aborted while a middleware before the adapter was busy: its events are past.
  if (req.destroyed) return Promise.resolve(INCOMPLETE);
  // Listeners, not `for await`: leaving an async iterator early destroys the socket. Module
  // functions reading their state from the request: no closures made per request.
  return new Promise((resolve) => {
    (req as BodyRequest)[READING] = { chunks: [], size: 0, limit, resolve };
    // The other listeners stay: a late 'error' after we stopped reading must still have a handler.
    req.on('data', onBodyData).on('end', onBodyEnd).on('error', onBodyAbort).on('aborted', onBodyAbort);
  });
}

/** What `readNodeBody` keeps on the request while it reads. */
const READING = Symbol('reading the body');
type BodyRequest = IncomingMessage & {
  [READING]?: {
    chunks: Buffer[];
    size: number;
    limit: number;
    resolve: (body: ReadBody | typeof INCOMPLETE) => void;
  };
};

function onBodyData(this: BodyRequest, chunk: Buffer): void {
  const reading = this[READING]!;
  reading.size += chunk.length;
  if (reading.size <= reading.limit) reading.chunks.push(chunk);
  else {
    finishBody(this, tooLarge(reading.limit));
    this.resume();
  }
}

function onBodyEnd(this: BodyRequest): void {
  const reading = this[READING];
  if (reading) finishBody(this, { body: new Uint8Array(Buffer.concat(reading.chunks)), bodyTooLarge: false });
}

function onBodyAbort(this: BodyRequest): void {
  if (this[READING]) finishBody(this, INCOMPLETE);
}

function finishBody(req: BodyRequest, result: ReadBody | typeof INCOMPLETE): void {
  const reading = req[READING]!;
  req[READING] = undefined;
  req.off('data', onBodyData);
  reading.resolve(result);
}

/**
 * The body a framework's own parser already consumed: its raw bytes when the parser kept them (or
 * left bytes or text as the body: `express.raw()`, `express.text()`), else the parsed value
 * serialized again (no longer byte-exact, but the core fingerprints the normalized request, not the
 * bytes). The limit applies first to the `Content-Length` the client declared, which counts what it
 * sent; only a chunked body is measured on what the parser left. `undefined`: nothing usable is left.
 */
export function preParsedBody(
  req: IncomingMessage,
  parsed: NodeAdapterRequest['parsed'],
  limit = MAX_BODY_BYTES,
): ReadBody | undefined {
  if (declaredTooLarge(req, limit)) return tooLarge(limit);
  const bytes = asBytes(parsed.raw) ?? asBytes(parsed.body) ?? reserialized(parsed.body);
  if (bytes === undefined) return undefined;
  return bytes.length > limit ? tooLarge(limit) : { body: bytes, bodyTooLarge: false };
}

/** Bytes as they are, text as its UTF-8 bytes; anything else is not the body's bytes. */
function asBytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  return undefined;
}

function reserialized(parsed: unknown): Uint8Array | undefined {
  if (parsed === undefined || typeof parsed === 'function') return undefined;
  return Buffer.from(JSON.stringify(parsed, keepNonFiniteNumbers) ?? '', 'utf8');
}

/**
 * A number JSON cannot hold (`1e999` parses as Infinity) stays a number, the largest JSON holds with
 * its sign: `JSON.stringify` would write null, which means "not requested" and would drop a check
 * the caller asked for, where the core refuses the number the client sent (as with the adapter first).
 */
function keepNonFiniteNumbers(_key: string, value: unknown): unknown {
  if (typeof value !== 'number' || Number.isFinite(value)) return value;
  return value < 0 ? -Number.MAX_VALUE : Number.MAX_VALUE;
}

/**
 * The request's headers, a header sent more than once as an array of its values. Node's
 * `req.headers` joins most repeats into one "a, b" string, which would pass two Idempotency-Keys
 * (or two API keys) as one valid-looking value; the core refuses an array instead.
 */
export function nodeRequestHeaders(req: IncomingMessage): Record<string, string | string[]> {
  // No name sent twice (Node would have joined or dropped the repeats): the joined headers are the
  // distinct ones, without building `headersDistinct`. `set-cookie` is an array even when sent once.
  const joined = req.headers;
  if (req.rawHeaders.length === 2 * Object.keys(joined).length && joined['set-cookie'] === undefined) {
    return joined as Record<string, string>;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (values && values.length > 0) headers[name] = values.length === 1 ? values[0]! : values;
  }
  return headers;
}

/** True when the request stream has already been read to its end by someone else. */
export function bodyConsumed(req: IncomingMessage): boolean {
  return req.readableEnded || (req.complete && !req.readable);
}

/** 500 `internal_error` through the one error mapping, for an adapter whose call to `handle` rejected. */
export function adapterFailureResponse(): CoreHttpResponse {
  return withApiHeaders(errorBody(randomUUID(), { kind: 'internal_error' }));
}
