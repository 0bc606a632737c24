// Every route of the developer API (docs/adr/0033-developer-api.md) in ONE table: the key's scope it
// needs (services/common/src/api-scopes.ts), the workspace permission its service calls need (the
// calls carry the lowest role holding it, services/common/src/roles.ts, so the services' own checks
// apply as for a member), whether its path names a chatbot (a key kept to other chatbots gets 404),
// and the schemas that validate it and document it (openapi.ts). permissions.ts names each of these
// routes 'api-key', so the roles sweep knows them; router.ts refuses a route this table lacks.
import type { z } from 'zod';
import type { ApiScope } from '@parley/common/api-scopes.ts';
import type { Permission } from '@parley/common/roles.ts';
import * as s from './schemas.ts';
import { McpRequest, McpResponse } from '../features/mcp/schemas.ts';

export interface ApiRoute {
  scope: ApiScope;
  permission: Permission;
  summary: string;
  /** The path's :id is a chatbot's. */
  chatbot: boolean;
  /** The success status and its body. */
  status: number;
  response: z.ZodType;
  /** Also answers as server-sent events when asked (`stream: true`). */
  streams?: boolean;
  body?: z.ZodType;
  /** The body is multipart/form-data (documented with this schema, read by the upload reader). */
  multipart?: boolean;
  query?: z.ZodObject;
}

export const API_V1_PREFIX = '/api/v1';

export const API_V1_ROUTES = {
  'GET /api/v1/chatbots': {
    scope: 'chatbots:read',
    permission: 'workspace:read',
    summary: "The workspace's chatbots (those the key may use)",
    chatbot: false,
    status: 200,
    response: s.ChatbotList,
  },
  'POST /api/v1/chatbots': {
    scope: 'chatbots:write',
    permission: 'chatbots:write',
    summary: 'Create a chatbot (not with a key kept to some chatbots)',
    chatbot: false,
    status: 201,
    response: s.Chatbot,
    body: s.CreateChatbot,
  },
  'GET /api/v1/chatbots/:id': {
    scope: 'chatbots:read',
    permission: 'workspace:read',
    summary: 'One chatbot',
    chatbot: true,
    status: 200,
    response: s.Chatbot,
  },
  'PATCH /api/v1/chatbots/:id': {
    scope: 'chatbots:write',
    permission: 'chatbots:write',
    summary: "Change a chatbot's settings",
    chatbot: true,
    status: 200,
    response: s.Chatbot,
    body: s.UpdateChatbot,
  },
  'DELETE /api/v1/chatbots/:id': {
    scope: 'chatbots:write',
    permission: 'chatbots:write',
    summary: 'Delete a chatbot with its knowledge and conversations',
    chatbot: true,
    status: 200,
    response: s.Deleted,
  },
  'GET /api/v1/models': {
    scope: 'chatbots:read',
    permission: 'workspace:read',
    summary: 'The models this deployment offers chatbots, the default first, each with whether the plan may use it',
    chatbot: false,
    status: 200,
    response: s.ModelList,
  },
  'GET /api/v1/chatbots/:id/knowledge': {
    scope: 'chatbots:read',
    permission: 'workspace:read',
    summary: "The chatbot's knowledge entries",
    chatbot: true,
    status: 200,
    response: s.EntryList,
  },
  'POST /api/v1/chatbots/:id/knowledge/text': {
    scope: 'knowledge:write',
    permission: 'chatbots:write',
    summary: 'Add typed text',
    chatbot: true,
    status: 201,
    response: s.EntryResult,
    body: s.AddText,
  },
  'POST /api/v1/chatbots/:id/knowledge/files': {
    scope: 'knowledge:write',
    permission: 'chatbots:write',
    summary: 'Add a file (read in the background: status processing)',
    chatbot: true,
    status: 202,
    response: s.EntryResult,
    body: s.AddFile,
    multipart: true,
  },
  'POST /api/v1/chatbots/:id/knowledge/urls': {
    scope: 'knowledge:write',
    permission: 'chatbots:write',
    summary: 'Add a web page, or a site crawled from it (fetched in the background)',
    chatbot: true,
    status: 202,
    response: s.EntryResult,
    body: s.AddUrl,
  },
  'POST /api/v1/chatbots/:id/knowledge/qa': {
    scope: 'knowledge:write',
    permission: 'chatbots:write',
    summary: 'Add a question and its answer',
    chatbot: true,
    status: 201,
    response: s.EntryResult,
    body: s.AddQa,
  },
  'DELETE /api/v1/chatbots/:id/knowledge/:entryId': {
    scope: 'knowledge:write',
    permission: 'chatbots:write',
    summary: 'Delete a knowledge entry',
    chatbot: true,
    status: 200,
    response: s.Deleted,
  },
  'POST /api/v1/chatbots/:id/chat': {
    scope: 'chat',
    permission: 'workspace:read',
    summary: 'Send a message and receive the answer (JSON, or server-sent events with stream: true)',
    chatbot: true,
    status: 200,
    response: s.ChatReply,
    streams: true,
    body: s.ChatRequest,
  },
  'GET /api/v1/chatbots/:id/conversations': {
    scope: 'conversations:read',
    permission: 'conversations:read',
    summary: 'Conversations, newest first, a page at a time (Pro plan)',
    chatbot: true,
    status: 200,
    response: s.ConversationPage,
    query: s.PageQuery,
  },
  'GET /api/v1/chatbots/:id/conversations/:conversationId': {
    scope: 'conversations:read',
    permission: 'conversations:read',
    summary: 'One conversation (Pro plan)',
    chatbot: true,
    status: 200,
    response: s.Conversation,
  },
  'GET /api/v1/chatbots/:id/conversations/:conversationId/messages': {
    scope: 'conversations:read',
    permission: 'conversations:read',
    summary: "A conversation's messages, oldest first, a page at a time (Pro plan)",
    chatbot: true,
    status: 200,
    response: s.MessagePage,
    query: s.PageQuery,
  },
  'GET /api/v1/usage': {
    scope: 'usage:read',
    permission: 'workspace:read',
    summary: "The workspace's usage and cost between two dates",
    chatbot: false,
    status: 200,
    response: s.Usage,
    query: s.UsageQuery,
  },
  'GET /api/v1/openai/models': {
    scope: 'chat',
    permission: 'workspace:read',
    summary: 'OpenAI-compatible: the chatbots the key may chat with, as models',
    chatbot: false,
    status: 200,
    response: s.OpenAIModels,
  },
  'POST /api/v1/openai/chat/completions': {
    scope: 'chat',
    permission: 'workspace:read',
    summary: 'OpenAI-compatible chat completion (model: a chatbot id); streams with stream: true',
    chatbot: false,
    status: 200,
    response: s.OpenAIChatCompletion,
    streams: true,
    body: s.OpenAIChatRequest,
  },
  'POST /api/v1/mcp': {
    scope: 'mcp',
    permission: 'workspace:read',
    summary: 'MCP server (Streamable HTTP, stateless): tools ask_<chatbot> and search_knowledge_<chatbot> for each chatbot the key may use',
    chatbot: false,
    status: 200,
    response: McpResponse,
    body: McpRequest,
  },
  'GET /api/v1/webhooks': {
    scope: 'webhooks:write',
    permission: 'webhooks:manage',
    summary: "The workspace's webhook endpoints, each with its last delivery",
    chatbot: false,
    status: 200,
    response: s.WebhookEndpointList,
  },
  'POST /api/v1/webhooks': {
    scope: 'webhooks:write',
    permission: 'webhooks:manage',
    summary: 'Register a webhook endpoint; the answer shows its signing secret, the only time it is shown',
    chatbot: false,
    status: 201,
    response: s.WebhookEndpointCreated,
    body: s.CreateWebhookEndpoint,
  },
  'PATCH /api/v1/webhooks/:id': {
    scope: 'webhooks:write',
    permission: 'webhooks:manage',
    summary: "Change a webhook endpoint's URL, events or whether it is enabled",
    chatbot: false,
    status: 200,
    response: s.WebhookEndpoint,
    body: s.UpdateWebhookEndpoint,
  },
  'DELETE /api/v1/webhooks/:id': {
    scope: 'webhooks:write',
    permission: 'webhooks:manage',
    summary: 'Delete a webhook endpoint with its delivery log',
    chatbot: false,
    status: 200,
    response: s.Deleted,
  },
  'POST /api/v1/webhooks/:id/roll-secret': {
    scope: 'webhooks:write',
    permission: 'webhooks:manage',
    summary: "Replace a webhook endpoint's signing secret (shown once; the previous one stops at once)",
    chatbot: false,
    status: 200,
    response: s.WebhookSecret,
  },
  'GET /api/v1/webhooks/:id/deliveries': {
    scope: 'webhooks:write',
    permission: 'webhooks:manage',
    summary: "A webhook endpoint's delivery log, newest first, a page at a time",
    chatbot: false,
    status: 200,
    response: s.WebhookDeliveryPage,
    query: s.PageQuery,
  },
  'POST /api/v1/webhooks/:id/deliveries/:deliveryId/redeliver': {
    scope: 'webhooks:write',
    permission: 'webhooks:manage',
    summary: 'Send a delivery again, with the same webhook-id',
    chatbot: false,
    status: 200,
    response: s.WebhookDelivery,
  },
  'POST /api/v1/webhooks/:id/test': {
    scope: 'webhooks:write',
    permission: 'webhooks:manage',
    summary: "Send an event type's example to a webhook endpoint, subscribed or not",
    chatbot: false,
    status: 201,
    response: s.WebhookDelivery,
    body: s.SendTestWebhook,
  },
} as const satisfies Record<string, ApiRoute>;

export type ApiRouteKey = keyof typeof API_V1_ROUTES;

/** The document itself: no key needed. */
export const OPENAPI_ROUTE = 'GET /api/v1/openapi.json';

export function apiRouteOf(key: string): ApiRoute | undefined {
  return Object.hasOwn(API_V1_ROUTES, key) ? (API_V1_ROUTES as Record<string, ApiRoute>)[key] : undefined;
}
