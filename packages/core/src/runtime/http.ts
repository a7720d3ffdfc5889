/**
 * The HTTP-shaped boundary between the core and a framework adapter. Adapters translate a
 * framework request into `CoreHttpRequest` and write `CoreHttpResponse` back, nothing more.
 */
export interface CoreHttpRequest {
  method: string;
  /** Path without query string, e.g. `/v1/transaction/check`. */
  path: string;
  /** Decoded query parameters; repeated parameters as arrays. */
  query: Record<string, string | string[] | undefined>;
  /** Header names in lower case, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body bytes (at most the body limit; adapters stop reading beyond it). */
  body: Uint8Array;
  /** Set by an adapter that stopped reading because the body exceeded the limit. */
  bodyTooLarge?: boolean;
}

export interface CoreHttpResponse {
  status: number;
  headers: Record<string, string>;
  /** Serialized JSON (byte-exact for idempotent replays). */
  body: string;
}

/** What serves `CoreHttpRequest`s: the service itself, or a wrapper around it (an adapter's view of it). */
export interface CoreHttpHandler {
  handle(request: CoreHttpRequest): Promise<CoreHttpResponse>;
}

export { MAX_BODY_BYTES } from '../validation/json-body.js';
