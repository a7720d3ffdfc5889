import { randomUUID } from 'node:crypto';

/** A caller's X-Request-ID is kept when it is 1–128 characters of `[A-Za-z0-9._:-]`. */
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(header: string | string[] | undefined, generate: () => string = randomUUID): string {
  return typeof header === 'string' && CALLER_REQUEST_ID.test(header) ? header : generate();
}
