// What a key of the developer API may do: the one list of scopes, each with the sentence the API's
// documentation shows for it (docs/adr/0031-api-keys.md). A key holds some of them; every call the
// API answers needs one. Each scope is within what the lowest role that manages keys (admin) may do.

export const API_SCOPES = {
  chat: "Send messages to the workspace's chatbots and receive their answers.",
  'chatbots:read': 'Read chatbots, their settings and their knowledge entries.',
  'chatbots:write': 'Create, change and delete chatbots and their settings.',
  'knowledge:write': "Add, refresh and delete entries of a chatbot's knowledge base.",
  'conversations:read': "Read conversations with their visitors' messages, and export them.",
  'usage:read': "Read the workspace's usage, credit and analytics.",
  'webhooks:write': 'Create, change and delete webhooks.',
  mcp: "Use the workspace's chatbots as tools of an MCP client (POST /api/v1/mcp): ask them, and search their knowledge.",
} as const satisfies Record<string, string>;

export type ApiScope = keyof typeof API_SCOPES;

/** Every scope, in the list's order. */
export const API_SCOPE_NAMES = Object.keys(API_SCOPES) as ApiScope[];

export function isApiScope(value: unknown): value is ApiScope {
  return typeof value === 'string' && Object.hasOwn(API_SCOPES, value);
}
