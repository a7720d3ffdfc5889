import { safetyMiddleware, type SafetyHandler } from '@tron-safety/adapters-koa';
import Koa from 'koa';

// An existing Koa 3 app. The safety middleware goes before any body parser and answers
// /v1/* itself (status, headers and body set directly, never thrown); other paths go on.
export function createKoaApp(service: SafetyHandler) {
  const app = new Koa();
  app.use(safetyMiddleware(service));
  app.use(async (ctx) => {
    if (ctx.path === '/health') ctx.body = { ok: true };
  });
  return app;
}
