import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { withApiHeaders } from './api-headers.js';
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
 * limit, and the rest of it is not worth reading.
 */
export async function answerNodeRequest(
  service: CoreHttpHandler,
  request: NodeAdapterRequest,
): Promise<{ response: CoreHttpResponse; closeConnection: boolean }> {
  const { req, method, path, query, parsed } = request;
  let closeConnection = false;
  try {
    const { body, bodyTooLarge } = bodyConsumed(req)
      ? (preParsedBody(parsed.raw, parsed.body) ?? { body: new Uint8Array(0), bodyTooLarge: false })
      : await readNodeBody(req);
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

/**
 * Reads a Node request body, keeping at most `MAX_BODY_BYTES`. Shared by the Express and Koa
 * adapters so both enforce the spec's 4 KiB limit the same way: a declared `Content-Length` over the
 * limit is refused without reading; otherwise bytes are counted as they arrive. Past the limit
 * what still arrives is discarded until the adapter answers and closes the connection
 * (`Connection: close`), so the client receives the 422 and the server reads no more.
 * Never rejects: a client that aborts mid-body gives whatever arrived (the core then rejects it).
 */
export function readNodeBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<ReadBody> {
  const declared = Number(req.headers['content-length']);
  if (!req.headers['transfer-encoding'] && Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve(tooLarge(limit));
  }
  // Listeners, not `for await`: leaving an async iterator early destroys the socket. Module
  // functions reading their state from the request: no closures made per request.
  return new Promise((resolve) => {
    (req as BodyRequest)[READING] = { chunks: [], size: 0, limit, resolve };
    // The other listeners stay: a late 'error' after we stopped reading must still have a handler.
    req.on('data', onBodyData).on('end', onBodyEnd).on('error', onBodyEnd).on('aborted', onBodyEnd);
  });
}

/** What `readNodeBody` keeps on the request while it reads. */
const READING = Symbol('reading the body');
type BodyRequest = IncomingMessage & {
  [READING]?: { chunks: Buffer[]; size: number; limit: number; resolve: (body: ReadBody) => void };
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

function finishBody(req: BodyRequest, result: ReadBody): void {
  const reading = req[READING]!;
  req[READING] = undefined;
  req.off('data', onBodyData);
  reading.resolve(result);
}

/**
 * The body a framework's own parser already consumed: its raw bytes when the parser kept them,
 * else the parsed value serialized again (no longer byte-exact, but the core fingerprints the
 * normalized request, not the bytes). `undefined` means nothing usable is left.
 */
export function preParsedBody(raw: unknown, parsed: unknown, limit = MAX_BODY_BYTES): ReadBody | undefined {
  let bytes: Uint8Array | undefined;
  if (raw instanceof Uint8Array) bytes = raw;
  else if (typeof raw === 'string') bytes = Buffer.from(raw, 'utf8');
  else if (parsed !== undefined && typeof parsed !== 'function')
    bytes = Buffer.from(JSON.stringify(parsed) ?? '', 'utf8');
  if (bytes === undefined) return undefined;
  return bytes.length > limit ? tooLarge(limit) : { body: bytes, bodyTooLarge: false };
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
