import { keepRawBody, safetyRouter, type SafetyHandler } from '@tron-safety/adapters-express';
import express from 'express';

// An existing Express 5 app with its own JSON routes. The safety router goes *before*
// express.json(): it reads the raw body itself (4 KiB limit, spec errors in JSON). If your
// express.json() must come first, give it `verify: keepRawBody` so the exact bytes are kept, and
// mount safetyParserErrors() after the router so the parser's refusals on /v1 are the spec's JSON too.
export function createExpressApp(service: SafetyHandler) {
  const app = express();
  app.use(safetyRouter(service)); // serves /v1/transaction/check and /v1/usage
  app.use(express.json({ verify: keepRawBody }));
  app.post('/orders', (req, res) => {
    res.status(201).json({ received: req.body });
  });
  return app;
}
