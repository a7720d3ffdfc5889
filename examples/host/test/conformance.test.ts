import { runHttpConformance } from '@tron-safety/core/testing';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createHttpServer, listen, stopAccepting, type Framework } from '../src/http-app.js';
import { createLogger, withRequestLog } from '../src/log.js';
import { withHostRoutes } from '../src/routes.js';
import type { ConformanceHandler } from '@tron-safety/core/testing';

// The one HTTP conformance suite, unchanged, through the host's Express and Koa servers (the
// same wrappers `startHost` uses: public routes, request log), with in-memory stores.
for (const framework of ['express', 'koa'] as Framework[]) {
  runHttpConformance(
    `${framework} host`,
    async (service) => {
      const target = service as ConformanceHandler & { apiDisabled: boolean };
      const handler = withRequestLog(withHostRoutes(target), createLogger('silent'));
      const server = createHttpServer(handler, framework);
      const { url } = await listen(server, 0, '127.0.0.1');
      return { url, close: () => stopAccepting(server) };
    },
    { createStores: createMemoryStores },
  );
}
