// Starts the gateway: validated environment, then the server and its /metrics on METRICS_PORT; stops
// gracefully on SIGTERM/SIGINT.
import { loadConfig } from '@parley/common/config.ts';
import { createLogger } from '@parley/common/logger.ts';
import { serveMetrics } from '@parley/common/metrics-server.ts';
import { runService } from '@parley/common/service.ts';
import { createGateway } from './app.ts';
import { gatewayVars } from './config.ts';

const config = loadConfig(gatewayVars);
const logger = createLogger('gateway', config.LOG_LEVEL);
await runService({
  name: 'gateway',
  logger,
  port: config.PORT,
  build: async () => {
    const parts = await createGateway(config, { logger });
    const metrics = await serveMetrics(config.METRICS_PORT);
    logger.info({ port: metrics.port }, 'metrics listening');
    return { ...parts, closers: [...parts.closers, metrics.close] };
  },
});
