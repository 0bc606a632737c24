// The McpServerService (proto/parley/chatbot/v1/mcp_servers.proto): maps proto ⇄ the MCP server use
// cases (mcp-servers.ts), nothing more.
import type { ConnectRouter } from '@connectrpc/connect';
import { create, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  McpListedToolSchema,
  McpPickedToolSchema,
  McpServerSchema,
  McpServerService,
  McpToolCallSchema,
  McpToolSchema,
} from '@parley/proto/parley/chatbot/v1/mcp_servers_pb.js';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { ActionDeps } from './actions.ts';
import {
  connectMcpServer,
  disconnectMcpServer,
  listMcpServers,
  listMcpToolCalls,
  refreshMcpServer,
  runMcpTool,
  setMcpServerTools,
  type McpModelTool,
  type McpServerView,
} from './mcp-servers.ts';

export const toMcpToolMessage = (t: McpModelTool) =>
  create(McpToolSchema, {
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as JsonObject,
    confirm: t.confirm,
    server: t.server,
  });

const toServerMessage = (s: McpServerView) =>
  create(McpServerSchema, {
    id: s.id,
    chatbotId: s.chatbotId,
    name: s.name,
    url: s.url,
    secretHeader: s.secretHeader,
    secretHint: s.secretHint,
    tools: s.tools.map((t) =>
      create(McpListedToolSchema, {
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema as JsonObject,
        readOnly: t.readOnly,
      }),
    ),
    picked: s.picked.map((p) => create(McpPickedToolSchema, p)),
    timeoutMs: s.timeoutMs,
    maxResultBytes: s.maxResultBytes,
    lastError: s.lastError,
    listedAt: s.listedAt ? timestampFromDate(s.listedAt) : undefined,
    createdAt: timestampFromDate(s.createdAt),
  });

export function mcpServerRoutes(deps: ActionDeps) {
  return (router: ConnectRouter) => {
    router.service(McpServerService, {
      async connectMcpServer(req) {
        const server = await connectMcpServer(
          deps,
          { ownerId: req.ownerId, chatbotId: req.chatbotId },
          {
            name: req.name,
            url: req.url,
            secretHeader: req.secretHeader,
            secret: req.secret,
            timeoutMs: req.timeoutMs,
            maxResultBytes: req.maxResultBytes,
          },
        );
        return { server: toServerMessage(server) };
      },
      async listMcpServers(req) {
        return { servers: (await listMcpServers(deps, { ownerId: req.ownerId, chatbotId: req.chatbotId })).map(toServerMessage) };
      },
      async refreshMcpServer(req) {
        return { server: toServerMessage(await refreshMcpServer(deps, { ownerId: req.ownerId, chatbotId: req.chatbotId }, req.serverId)) };
      },
      async setMcpServerTools(req) {
        const picked = req.picked.map((p) => ({ name: p.name, confirm: p.confirm, responseFields: p.responseFields }));
        return {
          server: toServerMessage(await setMcpServerTools(deps, { ownerId: req.ownerId, chatbotId: req.chatbotId }, req.serverId, picked)),
        };
      },
      async disconnectMcpServer(req) {
        await disconnectMcpServer(deps, { ownerId: req.ownerId, chatbotId: req.chatbotId }, req.serverId);
        return {};
      },
      async listMcpToolCalls(req) {
        const calls = await listMcpToolCalls(
          deps,
          { ownerId: req.ownerId, chatbotId: req.chatbotId },
          { serverId: req.serverId || undefined, sessionId: req.sessionId || undefined, limit: req.limit || undefined },
        );
        return {
          calls: calls.map((c) =>
            create(McpToolCallSchema, { ...c, inputs: c.inputs as JsonObject, createdAt: timestampFromDate(c.createdAt) }),
          ),
        };
      },
      async runMcpTool(req) {
        if (!req.callKey || req.callKey.length > 200) throw invalid('A call key is required');
        return runMcpTool(deps, {
          chatbotId: req.chatbotId,
          toolName: req.toolName,
          sessionId: req.sessionId,
          args: (req.arguments ?? {}) as JsonObject,
          callKey: req.callKey,
        });
      },
    });
  };
}
