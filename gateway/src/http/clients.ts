// One Connect client per service the gateway calls. Each call carries the request id (the kit's
// interceptor) and a deadline, so a slow service cannot hold a browser request forever; each URL may
// name several replicas, and calls spread over them.
import { currentRole } from '@parley/common/context.ts';
import { createServiceClient, type ServiceClientOptions } from '@parley/common/rpc-client.ts';
import { ROLE_HEADER } from '@parley/common/service-auth.ts';
import { ApiKeyService } from '@parley/proto/parley/auth/v1/api_keys_pb.js';
import { AuthService } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { SsoService } from '@parley/proto/parley/auth/v1/sso_pb.js';
import { WorkspaceService } from '@parley/proto/parley/auth/v1/workspaces_pb.js';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { WebhookService } from '@parley/proto/parley/chatbot/v1/webhooks_pb.js';
import { ActionService } from '@parley/proto/parley/chatbot/v1/actions_pb.js';
import { McpServerService } from '@parley/proto/parley/chatbot/v1/mcp_servers_pb.js';

export interface Clients {
  auth: ReturnType<typeof createServiceClient<typeof AuthService>>;
  workspaces: ReturnType<typeof createServiceClient<typeof WorkspaceService>>;
  apiKeys: ReturnType<typeof createServiceClient<typeof ApiKeyService>>;
  sso: ReturnType<typeof createServiceClient<typeof SsoService>>;
  billing: ReturnType<typeof createServiceClient<typeof BillingService>>;
  chatbot: ReturnType<typeof createServiceClient<typeof ChatbotService>>;
  /** The chatbot service's webhook endpoints and deliveries (ADR 32). */
  webhooks: ReturnType<typeof createServiceClient<typeof WebhookService>>;
  /** The chatbot service's HTTP actions (ADR 45). */
  actions: ReturnType<typeof createServiceClient<typeof ActionService>>;
  /** The chatbot service's remote MCP servers (ADR 55). */
  mcpServers: ReturnType<typeof createServiceClient<typeof McpServerService>>;
  chat: ReturnType<typeof createServiceClient<typeof ChatService>>;
}

export interface ClientConfig {
  AUTH_URL: string;
  BILLING_URL: string;
  CHATBOT_URL: string;
  CHAT_URL: string;
  RPC_TIMEOUT_MS: number;
  SERVICE_RESOLVE_INTERVAL_MS?: number;
  SERVICE_SECRET: string;
}

/**
 * Every call made for a request carries the member's role in the workspace the request acts in, once
 * the request has been authenticated (owners.ts): the services check it against their own tables.
 * A call that names its own role keeps it.
 */
const memberRole: NonNullable<ServiceClientOptions['interceptors']>[number] = (next) => (req) => {
  const role = currentRole();
  if (role && !req.header.has(ROLE_HEADER)) req.header.set(ROLE_HEADER, role);
  return next(req);
};

export function createClients(config: ClientConfig): Clients {
  const opts: ServiceClientOptions = {
    timeoutMs: config.RPC_TIMEOUT_MS,
    resolveIntervalMs: config.SERVICE_RESOLVE_INTERVAL_MS,
    credentials: { caller: 'gateway', secret: config.SERVICE_SECRET },
    interceptors: [memberRole],
  };
  return {
    auth: createServiceClient(AuthService, config.AUTH_URL, opts),
    workspaces: createServiceClient(WorkspaceService, config.AUTH_URL, opts),
    apiKeys: createServiceClient(ApiKeyService, config.AUTH_URL, opts),
    sso: createServiceClient(SsoService, config.AUTH_URL, opts),
    billing: createServiceClient(BillingService, config.BILLING_URL, opts),
    chatbot: createServiceClient(ChatbotService, config.CHATBOT_URL, opts),
    webhooks: createServiceClient(WebhookService, config.CHATBOT_URL, opts),
    actions: createServiceClient(ActionService, config.CHATBOT_URL, opts),
    mcpServers: createServiceClient(McpServerService, config.CHATBOT_URL, opts),
    chat: createServiceClient(ChatService, config.CHAT_URL, opts),
  };
}
