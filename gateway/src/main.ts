// Starts the gateway: validated environment, then the server and its /metrics on METRICS_PORT; stops
// gracefully on SIGTERM/SIGINT.
import { loadConfig } from '@parley/common/config.ts';
import { createLogger } from '@parley/common/logger.ts';
import { shutdownSettings } from '@parley/common/lifecycle.ts';
import { serveMetrics } from '@parley/common/metrics-server.ts';
import { runService } from '@parley/common/service.ts';
import { createGateway } from './http/app.ts';
import { gatewayVars } from './config.ts';

const config = loadConfig(gatewayVars);
const logger = createLogger('gateway', config.LOG_LEVEL);
// A streamed answer may last CHAT_TIMEOUT_MS; a shorter shutdown deadline would cut it on a rollout.
if (config.SHUTDOWN_TIMEOUT_MS <= config.CHAT_TIMEOUT_MS)
  logger.warn(
    { SHUTDOWN_TIMEOUT_MS: config.SHUTDOWN_TIMEOUT_MS, CHAT_TIMEOUT_MS: config.CHAT_TIMEOUT_MS },
    'SHUTDOWN_TIMEOUT_MS is not longer than CHAT_TIMEOUT_MS: a rollout may cut answers still streaming',
  );
await runService({
  name: 'gateway',
  logger,
  port: config.PORT,
  shutdown: shutdownSettings(config),
  build: async () => {
    const parts = await createGateway(config, { logger });
    const metrics = await serveMetrics(config.METRICS_PORT);
    logger.info({ port: metrics.port }, 'metrics listening');
    return { ...parts, closers: [...parts.closers, metrics.close] };
  },
});
