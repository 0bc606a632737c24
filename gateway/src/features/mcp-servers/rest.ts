// A chatbot's remote MCP servers for its owner (docs/adr/0055-mcp-tools-and-built-in-tools.md): thin
// REST calls to the chatbot service's McpServerService (mcp-servers.ts), which owns every rule and
// message; the rows check the shapes only. Changing is the chatbot settings' permission
// (chatbots:write), reading workspace:read, the call log conversations:read, as for HTTP actions,
// each row of this operation table (http/operations.ts) naming it:
//   GET    /api/chatbot/{id}/mcp-servers                               → [server]
//   POST   /api/chatbot/{id}/mcp-servers { name, url, secretHeader, secret, timeoutMs, maxResultBytes } → server (201)
//   POST   /api/chatbot/{id}/mcp-servers/{serverId}/refresh            → server
//   PUT    /api/chatbot/{id}/mcp-servers/{serverId}/tools { tools: [{ name, confirm, responseFields }] } → server
//   DELETE /api/chatbot/{id}/mcp-servers/{serverId}                    → { message }
//   GET    /api/chatbot/{id}/mcp-servers/calls?serverId&sessionId&limit → [call]
import { z } from 'zod';
import {
  connectMcpServer,
  disconnectMcpServer,
  listMcpServers,
  listMcpToolCalls,
  MCP_SERVER_DISCONNECTED_MESSAGE,
  refreshMcpServer,
  setMcpServerTools,
} from './mcp-servers.ts';
import { operation, type Operation } from '../../http/operations.ts';
import { withPaths } from '../../http/input.ts';

const who = 'session';
const base = '/api/chatbot/:id/mcp-servers';

const text = z.string().max(4000);
/** The shapes only: the chatbot service checks every rule and answers in the owner's words. */
const connectBody = withPaths(
  z
    .object({
      name: text,
      url: text,
      secretHeader: text.default(''),
      secret: text.default(''),
      timeoutMs: z.number().int().min(0).max(60_000).default(0),
      maxResultBytes: z
        .number()
        .int()
        .min(0)
        .max(10 * 1024 * 1024)
        .default(0),
    })
    .strict(),
);
const toolsBody = withPaths(
  z
    .object({
      tools: z.array(z.object({ name: text, confirm: z.boolean(), responseFields: z.array(text).max(30).default([]) }).strict()).max(100),
    })
    .strict(),
);
const callsQuery = withPaths(
  z.object({
    serverId: z.string().max(100).optional(),
    sessionId: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(200).optional(),
  }),
);

export const mcpServerOperations: Operation[] = [
  operation({ method: 'GET', path: base, who, permission: 'workspace:read' }, async ({ app: { clients }, member, params }) =>
    listMcpServers(clients, member, params.id),
  ),
  // The log holds what visitors asked for (the inputs): read as conversations are.
  operation(
    { method: 'GET', path: `${base}/calls`, who, permission: 'conversations:read', query: callsQuery },
    async ({ app: { clients }, member, params, query }) => listMcpToolCalls(clients, member, params.id, query),
  ),
  operation(
    { method: 'POST', path: base, who, permission: 'chatbots:write', status: 201, body: connectBody },
    async ({ app: { clients }, member, params, body }) => connectMcpServer(clients, member, params.id, body),
  ),
  operation(
    { method: 'POST', path: `${base}/:serverId/refresh`, who, permission: 'chatbots:write' },
    async ({ app: { clients }, member, params }) => refreshMcpServer(clients, member, params.id, params.serverId),
  ),
  operation(
    { method: 'PUT', path: `${base}/:serverId/tools`, who, permission: 'chatbots:write', body: toolsBody },
    async ({ app: { clients }, member, params, body }) => setMcpServerTools(clients, member, params.id, params.serverId, body.tools),
  ),
  operation(
    { method: 'DELETE', path: `${base}/:serverId`, who, permission: 'chatbots:write' },
    async ({ app: { clients }, member, params }) => {
      await disconnectMcpServer(clients, member, params.id, params.serverId);
      return { message: MCP_SERVER_DISCONNECTED_MESSAGE };
    },
  ),
];
