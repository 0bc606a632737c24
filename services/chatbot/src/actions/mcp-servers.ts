// A chatbot's remote MCP servers (docs/adr/0055-mcp-tools-and-built-in-tools.md): connect (its tools
// listed, bounded), list, refresh, pick the tools the bot may use, disconnect, and the run a visitor's
// tool call makes. A picked tool keeps an HTTP action's rules: a confirm flag (a confirm-required
// tool runs only under a visitor's confirmed card's call key, never from a model's call alone), the fields of its result the bot may read, a timeout,
// a size cap and a log row per call, claimed by the call's key before the server is called so a retry
// runs it once. The secret is sealed at rest under ACTION_SECRET_ENCRYPTION_KEY, bound to the
// server's id, and opened only to build the outgoing headers; the owner sees its last four characters.
import { randomUUID } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import { open, seal } from '@parley/common/sealed-secret.ts';
import { isUuid } from '@parley/common/ids.ts';
import { withoutControlCharacters } from '@parley/common/control-characters.ts';
import { OutboundError, outboundUrl } from '@parley/common/outbound/request.ts';
import type { McpServer, McpToolCall, Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { findOwnedChatbot, type OwnedChatbotRef } from '../core/owned-chatbot.ts';
import type { ActionDeps } from './actions.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, MAX_READ_BYTES } from './action-definition.ts';
import { MASK, maskSecrets, readFields } from './run-action.ts';
import { callServerTool, listServerTools, McpFailure, type McpEndpoint } from './mcp-client.ts';

export const MAX_MCP_SERVERS_PER_CHATBOT = 5;
/** The most tools kept of one server's list, and the most the bot may use of one server. */
export const MAX_LISTED_TOOLS = 50;
export const MAX_PICKED_TOOLS = 20;
/** A listed tool's description and input schema (as JSON) at most. */
export const MAX_DESCRIPTION_CHARS = 1000;
export const MAX_INPUT_SCHEMA_BYTES = 8 * 1024;
/** The most of a model's arguments sent to a server (as JSON). */
export const MAX_ARGUMENT_BYTES = 8 * 1024;

export const MCP_SERVER_NOT_FOUND = 'MCP server not found';
export const MCP_NAME_TAKEN = 'This chatbot already has an MCP server with that name';
export const TOO_MANY_MCP_SERVERS = `A chatbot may have at most ${MAX_MCP_SERVERS_PER_CHATBOT} MCP servers`;
/** The call key of a visitor's confirmed card (`confirm:<card id>`), the only key a confirm-required tool runs under. */
const CONFIRMED_CALL_KEY = /^confirm:[0-9a-f-]{36}$/;
export const MCP_NEEDS_CONFIRMATION = 'Not run: this tool needs the visitor to confirm first, and confirmation is not available here';

const SERVER_NAME = /^[a-z][a-z0-9_]{0,23}$/;
/** The strictest MCP clients' tool names; the model's name is the server's, "_", the tool's, at most 64. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MODEL_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;
const FIELD_PATH = /^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,5}$/;
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'transfer-encoding',
  'connection',
  'te',
  'upgrade',
  'trailer',
  'mcp-session-id',
  'mcp-protocol-version',
]);

export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The server's hint that the tool only reads (annotations.readOnlyHint): the dashboard's default for confirm. */
  readOnly: boolean;
}

export interface PickedTool {
  name: string;
  confirm: boolean;
  responseFields: string[];
}

export interface McpServerView {
  id: string;
  chatbotId: string;
  name: string;
  url: string;
  secretHeader: string;
  secretHint: string;
  tools: ListedTool[];
  picked: PickedTool[];
  timeoutMs: number;
  maxResultBytes: number;
  lastError: string;
  listedAt: Date | null;
  createdAt: Date;
}

/** A picked tool as the model's tool (no URL, no secret). */
export interface McpModelTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  confirm: boolean;
  server: string;
}

export const modelToolName = (server: string, tool: string) => `${server}_${tool}`;

const hintOf = (value: string) => (value.length > 8 ? `${MASK}${value.slice(-4)}` : MASK);
const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === 'P2002';

export function viewOf(row: McpServer): McpServerView {
  return {
    id: row.id,
    chatbotId: row.chatbotId,
    name: row.name,
    url: row.url,
    secretHeader: row.secretHeader,
    secretHint: row.secretHint,
    tools: row.tools as unknown as ListedTool[],
    picked: row.enabledTools as unknown as PickedTool[],
    timeoutMs: row.timeoutMs,
    maxResultBytes: row.maxResultBytes,
    lastError: row.lastError,
    listedAt: row.listedAt,
    createdAt: row.createdAt,
  };
}

/**
 * The listed tools the bot could be offered, bounded: a name the strictest clients accept (and that
 * still fits once prefixed), a description and an input schema (an object schema) within their caps,
 * at most MAX_LISTED_TOOLS; the rest are left out and said so.
 */
export function boundedTools(serverName: string, tools: Tool[]): { tools: ListedTool[]; leftOut: number } {
  const kept: ListedTool[] = [];
  const seen = new Set<string>();
  for (const t of tools) {
    if (kept.length >= MAX_LISTED_TOOLS) break;
    if (typeof t.name !== 'string' || !TOOL_NAME.test(t.name) || !MODEL_TOOL_NAME.test(modelToolName(serverName, t.name))) continue;
    if (seen.has(t.name)) continue;
    const schema = t.inputSchema as Record<string, unknown> | undefined;
    if (!schema || typeof schema !== 'object' || schema.type !== 'object') continue;
    if (Buffer.byteLength(JSON.stringify(schema), 'utf8') > MAX_INPUT_SCHEMA_BYTES) continue;
    seen.add(t.name);
    kept.push({
      name: t.name,
      description: withoutControlCharacters(typeof t.description === 'string' ? t.description : '').slice(0, MAX_DESCRIPTION_CHARS),
      inputSchema: schema,
      readOnly: t.annotations?.readOnlyHint === true,
    });
  }
  return { tools: kept, leftOut: tools.length - kept.length };
}

function endpointOf(deps: ActionDeps, row: Pick<McpServer, 'id' | 'url' | 'secret' | 'secretHeader' | 'timeoutMs' | 'maxResultBytes'>) {
  const secret = row.secret ? open(deps.secretKey, row.secret, row.id) : '';
  const headers: Record<string, string> = {};
  if (secret && row.secretHeader)
    headers[row.secretHeader.toLowerCase()] = row.secretHeader.toLowerCase() === 'authorization' ? `Bearer ${secret}` : secret;
  const endpoint: McpEndpoint = { url: row.url, headers, timeoutMs: row.timeoutMs, maxBytes: row.maxResultBytes };
  const secrets: Record<string, string> = secret ? { SECRET: secret } : {};
  return { endpoint, secrets };
}

/** The tools the chatbot's picked count is kept from, in the same transaction as the change (one chatbot's changes in turn). */
async function keepToolCount(tx: Prisma.TransactionClient, chatbotId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext('parley.mcp-tools'), hashtext(${chatbotId}))) AS l`;
  const servers = await tx.mcpServer.findMany({ where: { chatbotId }, select: { enabledTools: true } });
  const count = servers.reduce((n, s) => n + (s.enabledTools as unknown as PickedTool[]).length, 0);
  await tx.chatbot.update({ where: { id: chatbotId }, data: { mcpToolCount: count } });
}

export interface ConnectInput {
  name: string;
  url: string;
  secretHeader: string;
  secret: string;
  timeoutMs: number;
  maxResultBytes: number;
}

function checkedConnect(deps: ActionDeps, raw: ConnectInput): ConnectInput {
  const name = raw.name.trim();
  if (!SERVER_NAME.test(name)) throw invalid('The name is lower case letters, digits and underscores (at most 24), starting with a letter');
  const url = raw.url.trim();
  if (!url || url.length > 2000) throw invalid("The server's address is required (at most 2,000 characters)");
  try {
    outboundUrl(url, deps.policy);
  } catch (err) {
    if (err instanceof OutboundError) throw invalid(err.message);
    throw err;
  }
  const secretHeader = raw.secretHeader.trim();
  const secret = raw.secret;
  if (secretHeader && !HEADER_NAME.test(secretHeader)) throw invalid('A header name is letters, digits and dashes');
  if (RESERVED_HEADERS.has(secretHeader.toLowerCase())) throw invalid(`The header ${secretHeader} cannot be set`);
  if (secret.length > 4000) throw invalid('The secret is longer than 4,000 characters');
  if (secret && !secretHeader) throw invalid('Say which header carries the secret (e.g. Authorization)');
  if (/[\r\n\0]/.test(secret)) throw invalid('The secret may not contain line breaks');
  const timeoutMs = raw.timeoutMs || DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 500 || timeoutMs > 30_000) throw invalid('The timeout is 500 to 30,000 ms');
  const maxResultBytes = raw.maxResultBytes || DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isInteger(maxResultBytes) || maxResultBytes < 1024 || maxResultBytes > 1024 * 1024)
    throw invalid('The size cap is 1 KiB to 1 MiB');
  return { name, url, secretHeader: secret ? secretHeader : '', secret, timeoutMs, maxResultBytes };
}

/** The server's tools listed now, or the reason it could not be, in the owner's words. */
async function listNow(deps: ActionDeps, row: Parameters<typeof endpointOf>[1] & { name: string }) {
  const { endpoint, secrets } = endpointOf(deps, row);
  try {
    const listed = await listServerTools(endpoint, deps.policy, MAX_LISTED_TOOLS * 2);
    return { ok: true as const, ...boundedTools(row.name, listed) };
  } catch (err) {
    if (err instanceof McpFailure) return { ok: false as const, error: maskSecrets(err.message, secrets) };
    throw err;
  }
}

const leftOutNote = (n: number) =>
  n > 0
    ? `${n} of the server's tools were left out (a name, description or input schema out of bounds, or more than ${MAX_LISTED_TOOLS} tools)`
    : '';

/** Connects a server: its tools are listed first (a server that cannot be listed is not connected), none picked. */
export async function connectMcpServer(deps: ActionDeps, ref: OwnedChatbotRef, raw: ConnectInput): Promise<McpServerView> {
  const chatbot = await findOwnedChatbot(deps.db, ref);
  const input = checkedConnect(deps, raw);
  if ((await deps.db.mcpServer.count({ where: { chatbotId: chatbot.id } })) >= MAX_MCP_SERVERS_PER_CHATBOT)
    throw invalid(TOO_MANY_MCP_SERVERS);
  const id = randomUUID();
  const sealed = input.secret ? seal(deps.secretKey, input.secret, id) : '';
  const listed = await listNow(deps, { id, ...input, secret: sealed });
  if (!listed.ok) throw invalid(`The server's tools could not be listed: ${listed.error}`);
  try {
    const row = await deps.db.mcpServer.create({
      data: {
        id,
        chatbotId: chatbot.id,
        name: input.name,
        url: input.url,
        secretHeader: input.secretHeader,
        secret: sealed,
        secretHint: input.secret ? hintOf(input.secret) : '',
        tools: listed.tools as unknown as Prisma.InputJsonValue,
        enabledTools: [],
        timeoutMs: input.timeoutMs,
        maxResultBytes: input.maxResultBytes,
        lastError: leftOutNote(listed.leftOut),
        listedAt: new Date(),
      },
    });
    return viewOf(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw invalid(MCP_NAME_TAKEN);
    throw err;
  }
}

async function findServer(deps: ActionDeps, ref: OwnedChatbotRef, serverId: string): Promise<McpServer> {
  const chatbot = await findOwnedChatbot(deps.db, ref);
  const id = serverId.trim().toLowerCase();
  const row = isUuid(id) ? await deps.db.mcpServer.findFirst({ where: { id, chatbotId: chatbot.id } }) : null;
  if (!row) throw notFound(MCP_SERVER_NOT_FOUND);
  return row;
}

export async function listMcpServers(deps: ActionDeps, ref: OwnedChatbotRef): Promise<McpServerView[]> {
  const chatbot = await findOwnedChatbot(deps.db, ref);
  const rows = await deps.db.mcpServer.findMany({ where: { chatbotId: chatbot.id }, orderBy: { createdAt: 'asc' } });
  return rows.map(viewOf);
}

/** Lists the tools again: a failure is kept as the last error (the stored list stays); picked tools no longer listed are dropped. */
export async function refreshMcpServer(deps: ActionDeps, ref: OwnedChatbotRef, serverId: string): Promise<McpServerView> {
  const row = await findServer(deps, ref, serverId);
  const listed = await listNow(deps, row);
  if (!listed.ok) return viewOf(await deps.db.mcpServer.update({ where: { id: row.id }, data: { lastError: listed.error } }));
  const names = new Set(listed.tools.map((t) => t.name));
  const picked = (row.enabledTools as unknown as PickedTool[]).filter((p) => names.has(p.name));
  const updated = await deps.db.$transaction(async (tx) => {
    const u = await tx.mcpServer.update({
      where: { id: row.id },
      data: {
        tools: listed.tools as unknown as Prisma.InputJsonValue,
        enabledTools: picked as unknown as Prisma.InputJsonValue,
        lastError: leftOutNote(listed.leftOut),
        listedAt: new Date(),
      },
    });
    await keepToolCount(tx, row.chatbotId);
    return u;
  });
  await deps.publicChanged(row.chatbotId);
  return viewOf(updated);
}

/** Replaces the tools the bot may use: each one the server listed, its fields dotted paths. */
export async function setMcpServerTools(
  deps: ActionDeps,
  ref: OwnedChatbotRef,
  serverId: string,
  picked: PickedTool[],
): Promise<McpServerView> {
  const row = await findServer(deps, ref, serverId);
  const listed = new Set((row.tools as unknown as ListedTool[]).map((t) => t.name));
  if (picked.length > MAX_PICKED_TOOLS) throw invalid(`The bot may use at most ${MAX_PICKED_TOOLS} tools of one server`);
  const seen = new Set<string>();
  const clean: PickedTool[] = [];
  for (const p of picked) {
    if (!listed.has(p.name)) throw invalid(`The server does not list a tool named ${p.name.slice(0, 64)}`);
    if (seen.has(p.name)) throw invalid(`The tool ${p.name} is picked twice`);
    seen.add(p.name);
    if (p.responseFields.length > 30) throw invalid('At most 30 response fields per tool');
    for (const f of p.responseFields) if (!FIELD_PATH.test(f)) throw invalid('A response field is a dotted path, e.g. order.status');
    clean.push({ name: p.name, confirm: p.confirm, responseFields: p.responseFields });
  }
  const updated = await deps.db.$transaction(async (tx) => {
    const u = await tx.mcpServer.update({ where: { id: row.id }, data: { enabledTools: clean as unknown as Prisma.InputJsonValue } });
    await keepToolCount(tx, row.chatbotId);
    return u;
  });
  await deps.publicChanged(row.chatbotId);
  return viewOf(updated);
}

export async function disconnectMcpServer(deps: ActionDeps, ref: OwnedChatbotRef, serverId: string): Promise<void> {
  const row = await findServer(deps, ref, serverId);
  await deps.db.$transaction(async (tx) => {
    await tx.mcpServer.delete({ where: { id: row.id } });
    await keepToolCount(tx, row.chatbotId);
  });
  await deps.publicChanged(row.chatbotId);
}

/** The picked tools of a chatbot's servers as the model's tools: what the chat service reads with the chatbot. */
export async function mcpModelTools(db: PrismaClient, chatbotId: string): Promise<McpModelTool[]> {
  const rows = await db.mcpServer.findMany({ where: { chatbotId }, orderBy: { createdAt: 'asc' } });
  const tools: McpModelTool[] = [];
  for (const row of rows) {
    const listed = new Map((row.tools as unknown as ListedTool[]).map((t) => [t.name, t]));
    for (const p of row.enabledTools as unknown as PickedTool[]) {
      const t = listed.get(p.name);
      if (t)
        tools.push({
          name: modelToolName(row.name, t.name),
          description: t.description,
          inputSchema: t.inputSchema,
          confirm: p.confirm,
          server: row.name,
        });
    }
  }
  return tools;
}

/**
 * What the bot reads of a tool's result: with response fields, only those fields of its structured
 * content (or of its text, when that is JSON); without, its text blocks (images, audio and resources
 * are not read). At most MAX_READ_BYTES, control characters removed.
 */
export function readResult(result: CallToolResult, responseFields: string[]): { text: string; read: string[] } {
  const texts = (result.content ?? []).flatMap((c) => (c.type === 'text' && typeof c.text === 'string' ? [c.text] : []));
  if (responseFields.length) {
    let data: unknown = result.structuredContent;
    if (data === undefined) {
      try {
        data = JSON.parse(texts.join(''));
      } catch {
        data = undefined;
      }
    }
    const { fields, read } = readFields(data, responseFields);
    return { text: JSON.stringify(fields), read };
  }
  const text = withoutControlCharacters(texts.join('\n'));
  const bytes = Buffer.from(text, 'utf8');
  return {
    text:
      bytes.length > MAX_READ_BYTES
        ? bytes
            .subarray(0, MAX_READ_BYTES)
            .toString('utf8')
            .replace(/\uFFFD$/, '')
        : text,
    read: [],
  };
}

export interface McpRun {
  chatbotId: string;
  /** The model's name of the tool. */
  toolName: string;
  sessionId: string;
  args: Record<string, unknown>;
  callKey: string;
}

export interface McpRunOutcome {
  status: 'ok' | 'failed' | 'refused';
  error: string;
  result: string;
  fieldsRead: string[];
  durationMs: number;
  repeated: boolean;
}

const outcomeOf = (c: McpToolCall, repeated: boolean): McpRunOutcome => ({
  status: c.status as McpRunOutcome['status'],
  error: c.error,
  result: c.result,
  fieldsRead: c.fieldsRead,
  durationMs: c.durationMs,
  repeated,
});

const refused = (error: string): McpRunOutcome => ({
  status: 'refused',
  error,
  result: '',
  fieldsRead: [],
  durationMs: 0,
  repeated: false,
});

/** A visitor's tool call, run at most once per callKey (the log row is claimed before the server is called). */
export async function runMcpTool(deps: ActionDeps, run: McpRun): Promise<McpRunOutcome> {
  const rows = isUuid(run.chatbotId) ? await deps.db.mcpServer.findMany({ where: { chatbotId: run.chatbotId } }) : [];
  let server: McpServer | undefined;
  let tool: PickedTool | undefined;
  for (const row of rows) {
    const p = (row.enabledTools as unknown as PickedTool[]).find((t) => modelToolName(row.name, t.name) === run.toolName);
    if (p) [server, tool] = [row, p];
  }
  if (!server || !tool) return refused(`There is no tool named ${run.toolName.slice(0, 64)}`);
  // A confirm-required tool runs only as the visitor's confirmed card (ADR 54): its call key is the card's.
  if (tool.confirm && !CONFIRMED_CALL_KEY.test(run.callKey)) return refused(MCP_NEEDS_CONFIRMATION);
  const args = run.args && typeof run.args === 'object' && !Array.isArray(run.args) ? run.args : {};
  if (Buffer.byteLength(JSON.stringify(args), 'utf8') > MAX_ARGUMENT_BYTES)
    return refused(`The arguments are larger than ${MAX_ARGUMENT_BYTES} bytes`);
  const { endpoint, secrets } = endpointOf(deps, server);
  const shownInputs = JSON.parse(maskSecrets(JSON.stringify(args), secrets)) as Prisma.InputJsonValue;
  let claim: McpToolCall;
  try {
    claim = await deps.db.mcpToolCall.create({
      data: {
        serverId: server.id,
        chatbotId: server.chatbotId,
        toolName: tool.name,
        sessionId: run.sessionId,
        callKey: run.callKey,
        inputs: shownInputs,
        status: 'running',
      },
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const done = await deps.db.mcpToolCall.findUnique({ where: { callKey: run.callKey } });
    if (!done || done.status === 'running')
      return { status: 'failed', error: 'This call is already running', result: '', fieldsRead: [], durationMs: 0, repeated: true };
    return outcomeOf(done, true);
  }
  const started = performance.now();
  let status: McpRunOutcome['status'] = 'ok';
  let error = '';
  let text = '';
  let read: string[] = [];
  try {
    const result = await callServerTool(endpoint, deps.policy, tool.name, args);
    const r = readResult(result, result.isError ? [] : tool.responseFields);
    if (result.isError) {
      status = 'failed';
      error = `The tool failed: ${r.text.slice(0, 500)}`;
    } else [text, read] = [r.text, r.read];
  } catch (err) {
    if (!(err instanceof McpFailure)) throw err;
    status = err.refused ? 'refused' : 'failed';
    error = err.message;
  }
  const logged = await deps.db.mcpToolCall.update({
    where: { id: claim.id },
    data: {
      status,
      error: maskSecrets(error, secrets),
      result: maskSecrets(text, secrets),
      fieldsRead: read,
      durationMs: Math.round(performance.now() - started),
    },
  });
  const lastError = status === 'ok' ? '' : logged.error;
  if (lastError !== server.lastError && !(status === 'ok' && server.lastError.includes('were left out')))
    await deps.db.mcpServer.update({ where: { id: server.id }, data: { lastError } });
  return outcomeOf(logged, false);
}

export interface McpToolCallView {
  id: string;
  serverId: string;
  toolName: string;
  sessionId: string;
  inputs: Record<string, unknown>;
  status: string;
  error: string;
  durationMs: number;
  fieldsRead: string[];
  createdAt: Date;
}

export async function listMcpToolCalls(
  deps: ActionDeps,
  ref: OwnedChatbotRef,
  filter: { serverId?: string; sessionId?: string; limit?: number },
): Promise<McpToolCallView[]> {
  const chatbot = await findOwnedChatbot(deps.db, ref);
  const where: Prisma.McpToolCallWhereInput = { chatbotId: chatbot.id, NOT: { status: 'running' } };
  if (filter.serverId) where.serverId = (await findServer(deps, ref, filter.serverId)).id;
  if (filter.sessionId) where.sessionId = filter.sessionId.slice(0, 200);
  const calls = await deps.db.mcpToolCall.findMany({
    where,
    orderBy: { createdAt: 'desc' },
    take: Math.min(Math.max(filter.limit ?? 50, 1), 200),
  });
  return calls.map((c) => ({
    id: c.id,
    serverId: c.serverId,
    toolName: c.toolName,
    sessionId: c.sessionId,
    inputs: c.inputs as Record<string, unknown>,
    status: c.status,
    error: c.error,
    durationMs: c.durationMs,
    fieldsRead: c.fieldsRead,
    createdAt: c.createdAt,
  }));
}
