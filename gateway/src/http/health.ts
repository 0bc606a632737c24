// /healthz says the process runs; /readyz says it can serve: its own Redis answers (the Stripe
// events it hands to billing go through it). The services it calls are not asked: one that is down
// makes the calls that need it answer 503, never the whole gateway unready, and each service has
// readiness probes of its own (docs/adr/0025-process-lifecycle.md). While the gateway starts or
// drains, the kit's lifecycle answers /readyz with 503 before this router is reached.
import { Router } from 'express';
import { withDeadline } from '@parley/common/deadline.ts';

const CHECK_TIMEOUT_MS = 2000;

export function healthRouter(dependencies: { redis: { ping(): Promise<unknown> } }): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    let redis = 'ok';
    try {
      await withDeadline(dependencies.redis.ping(), CHECK_TIMEOUT_MS, `timed out after ${CHECK_TIMEOUT_MS} ms`);
    } catch (err) {
      redis = `error: ${(err as Error).message}`;
    }
    const ready = redis === 'ok';
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: { redis } });
  });
  return router;
}
