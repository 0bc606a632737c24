// /healthz says the process runs; /readyz says it can serve: the services it calls answer.
import { Router } from 'express';

const CHECK_TIMEOUT_MS = 2000;

export function healthRouter(dependencies: Record<string, string>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      Object.entries(dependencies).map(async ([name, setting]) => {
        // A list of replicas (ADR 27) is up while one of them answers: calls go around the others.
        const checks = await Promise.all(setting.split(',').map(check));
        return [name, checks.find((s) => s === 'ok') ?? checks[0]] as const;
      }),
    );
    const ready = results.every(([, s]) => s === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: Object.fromEntries(results) });
  });
  return router;
}

async function check(baseUrl: string): Promise<string> {
  try {
    const r = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
    return r.ok ? 'ok' : `error: HTTP ${r.status}`;
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}
