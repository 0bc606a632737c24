// Starts the gateway: validated environment, then the server; stops gracefully on SIGTERM/SIGINT.
import { loadConfig } from '@parley/common/config.ts';
import { createLogger } from '@parley/common/logger.ts';
import { shutdownSettings } from '@parley/common/lifecycle.ts';
import { runService } from '@parley/common/service.ts';
import { createGateway } from './app.ts';
import { gatewayVars } from './config.ts';

const config = loadConfig(gatewayVars);
const logger = createLogger('gateway', config.LOG_LEVEL);
await runService({
  name: 'gateway',
  logger,
  port: config.PORT,
  shutdown: shutdownSettings(config),
  build: () => createGateway(config, { logger }),
});
