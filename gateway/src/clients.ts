// One Connect client per service the gateway calls. Each call carries the request id (the kit's
// interceptor) and a deadline, so a slow service cannot hold a browser request forever; each URL may
// name several replicas, and calls spread over them.
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { AuthService } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';

export interface Clients {
  auth: ReturnType<typeof createServiceClient<typeof AuthService>>;
  billing: ReturnType<typeof createServiceClient<typeof BillingService>>;
  chatbot: ReturnType<typeof createServiceClient<typeof ChatbotService>>;
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

export function createClients(config: ClientConfig): Clients {
  const opts = {
    timeoutMs: config.RPC_TIMEOUT_MS,
    resolveIntervalMs: config.SERVICE_RESOLVE_INTERVAL_MS,
    credentials: { caller: 'gateway', secret: config.SERVICE_SECRET },
  } as const;
  return {
    auth: createServiceClient(AuthService, config.AUTH_URL, opts),
    billing: createServiceClient(BillingService, config.BILLING_URL, opts),
    chatbot: createServiceClient(ChatbotService, config.CHATBOT_URL, opts),
    chat: createServiceClient(ChatService, config.CHAT_URL, opts),
  };
}
