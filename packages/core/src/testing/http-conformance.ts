import { describe } from 'node:test';
import { httpCheckTests } from './http/check.js';
import { httpErrorsTests } from './http/errors.js';
import { httpIdempotencyTests } from './http/idempotency.js';
import { httpLimitsTests } from './http/limits.js';
import { httpRoutingTests } from './http/routing.js';
import { httpSuite, type HttpConformanceOptions, type StartServer } from './http/suite.js';
import { httpUsageTests } from './http/usage.js';

export type { ConformanceHandler, ConformanceServer, HttpConformanceOptions } from './http/suite.js';

/**
 * The one HTTP conformance suite: every endpoint, error code, header and idempotency, quota and
 * rate case of the spec that crosses HTTP, run against a real server listening on 127.0.0.1
 * (undici client). A host or adapter test calls it with a function that serves the given handler
 * through its framework; the suite builds the service (stores from `createStores`, the fake
 * java-tron node and the fake Chainalysis servers behind the real providers) and its tenants.
 * Its parts, one concern each, are in `./http/`.
 */
export function runHttpConformance(name: string, startServer: StartServer, options: HttpConformanceOptions): void {
  describe(`HTTP conformance: ${name}`, () => {
    const suite = httpSuite(startServer, options);
    httpCheckTests(suite);
    httpErrorsTests(suite);
    httpIdempotencyTests(suite);
    httpLimitsTests(suite);
    httpUsageTests(suite);
    httpRoutingTests(suite);
  });
}
