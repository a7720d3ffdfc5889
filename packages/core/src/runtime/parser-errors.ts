import type { IncomingMessage } from 'node:http';
import { payloadTooLarge } from '../validation/json-body.js';
import { requestError, type RequestError } from '../validation/request-error.js';
import type { CoreHttpResponse } from './http.js';
import { bodyRefusedResponse } from './node-adapter.js';

// A body parser mounted before an adapter refuses some bodies itself, and its framework would answer
// with its own page (Express's HTML, with a stack trace outside production; Koa's text/plain). The
// adapters' error handlers answer those refusals here, in the envelope the service gives.

/** raw-body's and body-parser's marks (`error.type`) on a body they could not read; `entity.verify.failed` is the host's. */
const UNREADABLE = new Set(['request.aborted', 'request.size.invalid', 'encoding.unsupported', 'charset.unsupported']);

/** The 422 the service would give for the body a parser refused, or `undefined` when `error` is not such a refusal. */
function parserRefusal(error: unknown): RequestError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, status } = error as { type?: unknown; status?: unknown };
  if (type === 'entity.too.large') return payloadTooLarge();
  // co-body (under @koa/bodyparser) marks its JSON.parse failure with status 400 alone.
  if (type === 'entity.parse.failed' || (error instanceof SyntaxError && status === 400))
    return requestError('validation_error', 'request body is not valid JSON');
  if (typeof type === 'string' && UNREADABLE.has(type))
    return requestError('validation_error', 'request body could not be read');
  return undefined;
}

/**
 * A body parser's refusal of `req`'s body (Express's `body-parser`, `co-body` under `@koa/bodyparser`,
 * both reading through `raw-body`) as the spec's answer: 422 `payload_too_large` over the parser's
 * limit, else 422 `validation_error`, in the ErrorResponse envelope with the caller's valid
 * X-Request-ID and the headers every API answer carries. `undefined` for any other error (the host's
 * own, a failing `verify`), which the host's error handling keeps. The request never reached the
 * service: nothing was authenticated or counted, and the answer has no rate-limit headers.
 */
export function parserErrorResponse(req: IncomingMessage, error: unknown): CoreHttpResponse | undefined {
  const refusal = parserRefusal(error);
  return refusal && bodyRefusedResponse(req, refusal);
}
