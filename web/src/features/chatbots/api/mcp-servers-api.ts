// A chatbot's remote MCP servers are REST (GET/POST/PUT/DELETE /api/chatbot/{id}/mcp-servers…), as
// HTTP actions are: same origin, so only the bearer token and the chosen workspace are needed. A
// refusal carries the server's message, written for the owner.
import { readToken } from '../../../lib/token-storage';
import { workspaceHeaders } from '../../../lib/workspace/workspace-storage';

export interface McpListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
}

export interface McpPickedTool {
  name: string;
  confirm: boolean;
  responseFields: string[];
}

export interface McpServerView {
  id: string;
  name: string;
  url: string;
  secretHeader: string;
  secretHint: string;
  tools: McpListedTool[];
  picked: McpPickedTool[];
  timeoutMs: number;
  maxResultBytes: number;
  lastError: string | null;
  listedAt: string | null;
  createdAt: string | null;
}

export interface ConnectMcpServerInput {
  name: string;
  url: string;
  secretHeader: string;
  secret: string;
}

/** A refused or failed call, carrying the sentence to show the owner. */
export class McpServersApiError extends Error {}

const base = (chatbotId: string) => `/api/chatbot/${encodeURIComponent(chatbotId)}/mcp-servers`;

async function call<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const token = readToken();
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...workspaceHeaders(),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
  } catch {
    throw new McpServersApiError('Could not reach Parley. Please try again.');
  }
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const message = (body as { message?: unknown } | null)?.message;
    throw new McpServersApiError(typeof message === 'string' && res.status < 500 ? message : 'Something went wrong. Please try again.');
  }
  return body as T;
}

export async function listMcpServers(chatbotId: string): Promise<McpServerView[]> {
  const servers = await call<unknown>(base(chatbotId));
  if (!Array.isArray(servers)) throw new McpServersApiError('Could not load the MCP servers. Please try again.');
  return servers as McpServerView[];
}

export const connectMcpServer = (chatbotId: string, input: ConnectMcpServerInput) =>
  call<McpServerView>(base(chatbotId), { method: 'POST', body: input });

export const refreshMcpServer = (chatbotId: string, serverId: string) =>
  call<McpServerView>(`${base(chatbotId)}/${encodeURIComponent(serverId)}/refresh`, { method: 'POST' });

export const setMcpServerTools = (chatbotId: string, serverId: string, tools: McpPickedTool[]) =>
  call<McpServerView>(`${base(chatbotId)}/${encodeURIComponent(serverId)}/tools`, { method: 'PUT', body: { tools } });

export const disconnectMcpServer = (chatbotId: string, serverId: string) =>
  call<{ message: string }>(`${base(chatbotId)}/${encodeURIComponent(serverId)}`, { method: 'DELETE' });

export interface McpToolCallView {
  id: string;
  serverId: string;
  toolName: string;
  sessionId: string;
  /** Masked as served. */
  inputs: Record<string, unknown>;
  status: string;
  error: string | null;
  durationMs: number;
  fieldsRead: string[];
  createdAt: string | null;
}

/** One conversation's MCP tool calls (newest first, at most 200), inputs masked as served. */
export async function listConversationMcpToolCalls(chatbotId: string, sessionId: string): Promise<McpToolCallView[]> {
  const q = new URLSearchParams({ sessionId, limit: '200' });
  const calls = await call<unknown>(`${base(chatbotId)}/calls?${q.toString()}`);
  if (!Array.isArray(calls)) throw new McpServersApiError('Could not load the calls. Please try again.');
  return calls as McpToolCallView[];
}
