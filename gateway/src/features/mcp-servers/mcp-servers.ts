// A chatbot's remote MCP servers as the gateway sees them (docs/adr/0055-mcp-tools-and-built-in-tools.md):
// thin calls to the chatbot service's McpServerService, which owns every rule and message, and their
// JSON views. Every change is recorded in the workspace's audit log. The secret is write only:
// answers carry `secretHint` (its last four characters).
import type { McpServer, McpToolCall } from '@parley/proto/parley/chatbot/v1/mcp_servers_pb.js';
import { isoDate } from '../../http/dates.ts';
import type { Clients } from '../../http/clients.ts';
import type { Member } from '../../access/members.ts';
import { actor } from '../workspaces/workspaces.ts';

export const MCP_SERVER_DISCONNECTED_MESSAGE = 'MCP server disconnected';

type Calls = Clients['mcpServers'];
/** What connecting a server takes (its name, URL, secret header and value, limits), as the chatbot service reads it. */
export type McpServerSettings = Omit<Parameters<Calls['connectMcpServer']>[0], '$typeName' | 'ownerId' | 'chatbotId'>;
/** The tools the chatbot may call, picked from those the server lists. */
export type PickedTools = NonNullable<Parameters<Calls['setMcpServerTools']>[0]['picked']>;

/** Which calls of the log to list. */
export interface McpToolCallFilter {
  serverId?: string;
  sessionId?: string;
  limit?: number;
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
  listedAt: isoDate(s?.listedAt),
  createdAt: isoDate(s?.createdAt),
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
  createdAt: isoDate(c.createdAt),
});

const audit = (clients: Clients, m: Member, action: string, chatbotId: string, details: object) =>
  clients.workspaces.recordAuditEvent({ actor: actor(m), action, target: chatbotId, detailsJson: JSON.stringify(details) });

const ref = (m: Member, chatbotId: string) => ({ ownerId: m.ownerId, chatbotId });

export async function listMcpServers(clients: Clients, m: Member, chatbotId: string) {
  const { servers } = await clients.mcpServers.listMcpServers(ref(m, chatbotId));
  return servers.map(mcpServerView);
}

export async function listMcpToolCalls(clients: Clients, m: Member, chatbotId: string, filter: McpToolCallFilter) {
  const { calls } = await clients.mcpServers.listMcpToolCalls({ ...ref(m, chatbotId), ...filter });
  return calls.map(callView);
}

export async function connectMcpServer(clients: Clients, m: Member, chatbotId: string, settings: McpServerSettings) {
  const { server } = await clients.mcpServers.connectMcpServer({ ...ref(m, chatbotId), ...settings });
  await audit(clients, m, 'chatbot.mcp_server_connected', chatbotId, { serverId: server?.id, name: server?.name, url: server?.url });
  return mcpServerView(server);
}

/** The server's tools listed again. */
export async function refreshMcpServer(clients: Clients, m: Member, chatbotId: string, serverId: string) {
  const { server } = await clients.mcpServers.refreshMcpServer({ ...ref(m, chatbotId), serverId });
  return mcpServerView(server);
}

export async function setMcpServerTools(clients: Clients, m: Member, chatbotId: string, serverId: string, tools: PickedTools) {
  const { server } = await clients.mcpServers.setMcpServerTools({ ...ref(m, chatbotId), serverId, picked: tools });
  await audit(clients, m, 'chatbot.mcp_tools_changed', chatbotId, { serverId: server?.id, tools: tools.map((t) => t.name) });
  return mcpServerView(server);
}

export async function disconnectMcpServer(clients: Clients, m: Member, chatbotId: string, serverId: string): Promise<void> {
  await clients.mcpServers.disconnectMcpServer({ ...ref(m, chatbotId), serverId });
  await audit(clients, m, 'chatbot.mcp_server_disconnected', chatbotId, { serverId });
}
