// A chatbot's remote MCP servers for its owner (docs/adr/0055-mcp-tools-and-built-in-tools.md): thin
// REST calls to the chatbot service's McpServerService, which owns every rule and message. Changing
// is the chatbot settings' permission (chatbots:write), reading workspace:read, the call log
// conversations:read, as for HTTP actions; every change is recorded in the workspace's audit log. The
// secret is write only: answers carry `secretHint` (its last four characters).
//   GET    /api/chatbot/{id}/mcp-servers                               → [server]
//   POST   /api/chatbot/{id}/mcp-servers { name, url, secretHeader, secret, timeoutMs, maxResultBytes } → server (201)
//   POST   /api/chatbot/{id}/mcp-servers/{serverId}/refresh            → server
//   PUT    /api/chatbot/{id}/mcp-servers/{serverId}/tools { tools: [{ name, confirm, responseFields }] } → server
//   DELETE /api/chatbot/{id}/mcp-servers/{serverId}                    → { message }
//   GET    /api/chatbot/{id}/mcp-servers/calls?serverId&sessionId&limit → [call]
import { Router, type Request } from 'express';
import { z } from 'zod';
import { invalid } from '@parley/common/rpc-errors.ts';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { McpServer, McpToolCall } from '@parley/proto/parley/chatbot/v1/mcp_servers_pb.js';
import type { Clients } from '../../http/clients.ts';
import { routeMember, type Member } from '../../access/members.ts';

export const MCP_SERVER_DISCONNECTED_MESSAGE = 'MCP server disconnected';

const text = z.string().max(4000);
/** The shapes only: the chatbot service checks every rule and answers in the owner's words. */
const connectBody = z
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
  .strict();
const toolsBody = z
  .object({
    tools: z.array(z.object({ name: text, confirm: z.boolean(), responseFields: z.array(text).max(30).default([]) }).strict()).max(100),
  })
  .strict();

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
  }
  return parsed.data;
}

export const mcpServerView = (s: McpServer | undefined) => ({
  id: s?.id ?? '',
  chatbotId: s?.chatbotId ?? '',
  name: s?.name ?? '',
  url: s?.url ?? '',
  secretHeader: s?.secretHeader ?? '',
  secretHint: s?.secretHint ?? '',
  tools: (s?.tools ?? []).map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema ?? {},
    readOnly: t.readOnly,
  })),
  picked: (s?.picked ?? []).map((p) => ({ name: p.name, confirm: p.confirm, responseFields: [...p.responseFields] })),
  timeoutMs: s?.timeoutMs ?? 0,
  maxResultBytes: s?.maxResultBytes ?? 0,
  lastError: s?.lastError || null,
  listedAt: s?.listedAt ? timestampDate(s.listedAt).toISOString() : null,
  createdAt: s?.createdAt ? timestampDate(s.createdAt).toISOString() : null,
});

const callView = (c: McpToolCall) => ({
  id: c.id,
  serverId: c.serverId,
  toolName: c.toolName,
  sessionId: c.sessionId,
  inputs: c.inputs ?? {},
  status: c.status,
  error: c.error || null,
  durationMs: c.durationMs,
  fieldsRead: [...c.fieldsRead],
  createdAt: c.createdAt ? timestampDate(c.createdAt).toISOString() : null,
});

async function audit(clients: Clients, m: Member, action: string, chatbotId: string, details: object): Promise<void> {
  await clients.workspaces.recordAuditEvent({
    actor: { userId: m.user.id, workspaceId: m.ownerId, clientIp: m.clientIp },
    action,
    target: chatbotId,
    detailsJson: JSON.stringify(details),
  });
}

const ref = (m: Member, req: Request) => ({ ownerId: m.ownerId, chatbotId: String(req.params.id) });

/** Mounted under /api/chatbot, beside the chatbot routes (the permission table names the full paths). */
export function mcpServerRoutes(clients: Clients): Router {
  const router = Router();
  router.get('/:id/mcp-servers', async (req, res) => {
    const m = await routeMember(clients, req);
    const { servers } = await clients.mcpServers.listMcpServers(ref(m, req));
    res.json(servers.map(mcpServerView));
  });
  router.get('/:id/mcp-servers/calls', async (req, res) => {
    const m = await routeMember(clients, req);
    const q = parse(
      z.object({
        serverId: z.string().max(100).optional(),
        sessionId: z.string().max(200).optional(),
        limit: z.coerce.number().int().min(1).max(200).optional(),
      }),
      req.query,
    );
    const { calls } = await clients.mcpServers.listMcpToolCalls({ ...ref(m, req), ...q });
    res.json(calls.map(callView));
  });
  router.post('/:id/mcp-servers', async (req, res) => {
    const m = await routeMember(clients, req);
    const body = parse(connectBody, req.body);
    const { server } = await clients.mcpServers.connectMcpServer({ ...ref(m, req), ...body });
    await audit(clients, m, 'chatbot.mcp_server_connected', req.params.id, { serverId: server?.id, name: server?.name, url: server?.url });
    res.status(201).json(mcpServerView(server));
  });
  router.post('/:id/mcp-servers/:serverId/refresh', async (req, res) => {
    const m = await routeMember(clients, req);
    const { server } = await clients.mcpServers.refreshMcpServer({ ...ref(m, req), serverId: req.params.serverId });
    res.json(mcpServerView(server));
  });
  router.put('/:id/mcp-servers/:serverId/tools', async (req, res) => {
    const m = await routeMember(clients, req);
    const { tools } = parse(toolsBody, req.body);
    const { server } = await clients.mcpServers.setMcpServerTools({ ...ref(m, req), serverId: req.params.serverId, picked: tools });
    await audit(clients, m, 'chatbot.mcp_tools_changed', req.params.id, { serverId: server?.id, tools: tools.map((t) => t.name) });
    res.json(mcpServerView(server));
  });
  router.delete('/:id/mcp-servers/:serverId', async (req, res) => {
    const m = await routeMember(clients, req);
    await clients.mcpServers.disconnectMcpServer({ ...ref(m, req), serverId: req.params.serverId });
    await audit(clients, m, 'chatbot.mcp_server_disconnected', req.params.id, { serverId: req.params.serverId });
    res.json({ message: MCP_SERVER_DISCONNECTED_MESSAGE });
  });
  return router;
}
