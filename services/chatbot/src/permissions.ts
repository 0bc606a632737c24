// The owner-facing methods and the permission a member's role needs for each (services/common/src/roles.ts,
// docs/adr/0030-workspaces.md). A gateway call to one of them without a role that holds it is
// refused before it runs; the public and service-to-service methods are not listed.
import { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { WebhookService } from '@parley/proto/parley/chatbot/v1/webhooks_pb.js';
import { methodPermissions } from '@parley/common/service-auth.ts';

export const chatbotPermissions = methodPermissions(ChatbotService, {
  ListChatbots: 'workspace:read',
  GetChatbot: 'workspace:read',
  CreateChatbot: 'chatbots:write',
  UpdateChatbot: 'chatbots:write',
  DeleteChatbot: 'chatbots:write',
  SetProfilePicture: 'chatbots:write',
  AddTextEntry: 'chatbots:write',
  DeleteTextEntry: 'chatbots:write',
  AddFileEntry: 'chatbots:write',
  AddUrlEntry: 'chatbots:write',
  AddQaEntry: 'chatbots:write',
  RefreshEntry: 'chatbots:write',
  SetEntryAutoSync: 'chatbots:write',
});

export const webhookPermissions = methodPermissions(WebhookService, {
  CreateWebhookEndpoint: 'webhooks:manage',
  ListWebhookEndpoints: 'webhooks:manage',
  UpdateWebhookEndpoint: 'webhooks:manage',
  DeleteWebhookEndpoint: 'webhooks:manage',
  RollWebhookSecret: 'webhooks:manage',
  ListWebhookDeliveries: 'webhooks:manage',
  RedeliverWebhook: 'webhooks:manage',
  SendTestWebhook: 'webhooks:manage',
  // The workspace's own settings (docs/adr/0059-retention-in-every-service.md): owners and admins, as chat's windows.
  GetWebhookRetention: 'members:manage',
  SetWebhookRetention: 'members:manage',
  PreviewWebhookRetention: 'members:manage',
});

/** The methods no role is asked for (the public lookup, and what the chat service asks while answering a visitor); every method is in one list or the other. */
export const chatbotUnchecked: readonly string[] = ['GetPublicChatbot', 'Retrieve', 'GetPromptKnowledge'];
