// MCP servers end to end on the chatbot service: a local MCP server built with the official SDK's
// server, reached over Streamable HTTP through the one outbound guard (loopback allowed through the
// operator's allow-list, OUTBOUND_ALLOW, here only), its tools listed, picked, given to the chat
// service with the chatbot, and run once per call key, with the bounds of an HTTP action.
import { randomUUID } from 'node:crypto';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServerService } from '@parley/proto/parley/chatbot/v1/mcp_servers_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { MCP_INJECTION, startFakeMcpServer, startSilentServer, type FakeMcpServer } from '@parley/common/testing/fake-mcp-server.ts';
import { MCP_NEEDS_CONFIRMATION } from '../../src/actions/mcp-servers.ts';
import { expectRpcError, newOwner, rpcError, startChatbotService, type TestChatbotService } from './harness.ts';

const asText = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
const TOKEN = 'mcp_token_0123456789abcdef';

let svc: TestChatbotService;
let client: ReturnType<typeof createServiceClient<typeof McpServerService>>;
let mcp: FakeMcpServer;
let internal: FakeMcpServer;
let silent: Awaited<ReturnType<typeof startSilentServer>>;

beforeAll(async () => {
  mcp = await startFakeMcpServer('127.0.0.1');
  internal = await startFakeMcpServer('127.0.0.2');
  silent = await startSilentServer('127.0.0.1');
  svc = await startChatbotService({ OUTBOUND_ALLOW: '127.0.0.1' });
  client = createServiceClient(McpServerService, svc.url);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await Promise.all([mcp?.close(), internal?.close(), silent?.close()]);
});

async function connected(extra: Record<string, unknown> = {}) {
  const ownerId = newOwner();
  const chatbot = await svc.createChatbot(ownerId);
  const { server } = await client.connectMcpServer({
    ownerId,
    chatbotId: chatbot.id,
    name: 'shop',
    url: mcp.url,
    secretHeader: 'Authorization',
    secret: TOKEN,
    ...extra,
  });
  return { ownerId, chatbot, server: server! };
}

/** The refusal's message, after checking it is InvalidArgument. */
async function refusal(call: Promise<unknown>): Promise<string> {
  const err = await rpcError(call);
  expect(Code[err.code]).toBe('InvalidArgument');
  return err.rawMessage;
}

const run = (chatbotId: string, toolName: string, callKey: string, args: Record<string, unknown> = {}) =>
  client.runMcpTool({ chatbotId, toolName, sessionId: 'session-1', arguments: args as never, callKey });

describe('connecting an MCP server', () => {
  it('lists its tools with the secret sent as a bearer token, sealed at rest and shown by its last four', async () => {
    const before = mcp.requests.length;
    const { ownerId, chatbot, server } = await connected();
    expect(server.tools.map((t) => t.name)).toEqual([
      'order_status',
      'cancel_order',
      'store_hours',
      'huge_report',
      'never_answers',
      'broken',
    ]);
    const status = server.tools[0];
    expect(status.description).toBe('Where an order is');
    expect(status.readOnly).toBe(true);
    expect(status.inputSchema).toMatchObject({ type: 'object', properties: { order_id: { type: 'string' } } });
    expect(server.picked).toEqual([]);
    expect(server.secretHint).toBe('••••cdef');
    expect(mcp.requests.slice(before).every((h) => h.authorization === `Bearer ${TOKEN}`)).toBe(true);
    const row = await svc.db.mcpServer.findUniqueOrThrow({ where: { id: server.id } });
    expect(JSON.stringify(row)).not.toContain(TOKEN);
    expect(asText(await client.listMcpServers({ ownerId, chatbotId: chatbot.id }))).not.toContain(TOKEN);
    // Nothing picked: the chatbot's tools are none, and no server row is read with it.
    expect((await svc.db.chatbot.findUniqueOrThrow({ where: { id: chatbot.id } })).mcpToolCount).toBe(0);
  });

  it('refuses a server on an address the guard does not allow, an unknown header set, and a bad name', async () => {
    const ownerId = newOwner();
    const chatbot = await svc.createChatbot(ownerId);
    const base = { ownerId, chatbotId: chatbot.id, name: 'inside', secretHeader: '', secret: '' };
    const refused = await refusal(client.connectMcpServer({ ...base, url: internal.url }));
    expect(refused).toContain('127.0.0.2 is a loopback address');
    expect(internal.calls).toHaveLength(0);
    await refusal(client.connectMcpServer({ ...base, url: mcp.url, name: 'Bad Name' }));
    await expectRpcError(
      client.connectMcpServer({ ...base, url: mcp.url, secretHeader: 'Host', secret: 'x' }),
      Code.InvalidArgument,
      'The header Host cannot be set',
    );
    await refusal(client.connectMcpServer({ ...base, url: 'file:///etc/passwd' }));
  });

  it('does not connect a server that never answers, within its timeout', async () => {
    const ownerId = newOwner();
    const chatbot = await svc.createChatbot(ownerId);
    const err = await refusal(client.connectMcpServer({ ownerId, chatbotId: chatbot.id, name: 'hung', url: silent.url, timeoutMs: 800 }));
    expect(err).toMatch(/could not be listed: No complete answer/);
  });
});

describe('picked tools', () => {
  it('ride on the chatbot as the model tools, prefixed with the server name, and only the picked ones', async () => {
    const { ownerId, chatbot, server } = await connected();
    await expectRpcError(
      client.setMcpServerTools({ ownerId, chatbotId: chatbot.id, serverId: server.id, picked: [{ name: 'rm_rf', confirm: false }] }),
      Code.InvalidArgument,
      'The server does not list a tool named rm_rf',
    );
    await client.setMcpServerTools({
      ownerId,
      chatbotId: chatbot.id,
      serverId: server.id,
      picked: [
        { name: 'order_status', confirm: false, responseFields: ['order.status', 'order.note'] },
        { name: 'cancel_order', confirm: true },
      ],
    });
    expect((await svc.db.chatbot.findUniqueOrThrow({ where: { id: chatbot.id } })).mcpToolCount).toBe(2);
    const knowledge = await svc.client.getPromptKnowledge({ uniqueId: chatbot.uniqueId, query: 'x', budgetChars: 1000, k: 0 });
    expect(knowledge.chatbot!.mcpTools.map((t) => [t.name, t.confirm])).toEqual([
      ['shop_order_status', false],
      ['shop_cancel_order', true],
    ]);
    expect(asText(knowledge)).not.toContain(mcp.url);
    expect(asText(knowledge)).not.toContain(TOKEN);
    await client.disconnectMcpServer({ ownerId, chatbotId: chatbot.id, serverId: server.id });
    expect((await svc.db.chatbot.findUniqueOrThrow({ where: { id: chatbot.id } })).mcpToolCount).toBe(0);
    const after = await svc.client.getPromptKnowledge({ uniqueId: chatbot.uniqueId, query: 'x', budgetChars: 1000, k: 0 });
    expect(after.chatbot!.mcpTools).toEqual([]);
  });

  it('reads only the allow-listed fields of a result, runs once per call key, and logs the call', async () => {
    const { ownerId, chatbot, server } = await connected();
    await client.setMcpServerTools({
      ownerId,
      chatbotId: chatbot.id,
      serverId: server.id,
      picked: [{ name: 'order_status', confirm: false, responseFields: ['order.status'] }],
    });
    const before = mcp.calls.length;
    const [a, b] = await Promise.all([
      run(chatbot.id, 'shop_order_status', 'req-1:1', { order_id: '1042' }),
      run(chatbot.id, 'shop_order_status', 'req-1:1', { order_id: '1042' }),
    ]);
    const first = await run(chatbot.id, 'shop_order_status', 'req-1:1', { order_id: '1042' });
    expect(mcp.calls.length - before).toBe(1);
    expect(first).toMatchObject({ status: 'ok', result: '{"order.status":"shipped"}', fieldsRead: ['order.status'], repeated: true });
    expect([a.repeated, b.repeated].sort()).toEqual([false, true]);
    expect(first.result).not.toContain('staff only');
    const log = await client.listMcpToolCalls({ ownerId, chatbotId: chatbot.id, serverId: server.id });
    expect(log.calls.map((c) => [c.toolName, c.status, c.inputs, c.fieldsRead])).toEqual([
      ['order_status', 'ok', { order_id: '1042' }, ['order.status']],
    ]);
  });

  it('hands a text result with a prompt injection on as data, capped, and never runs a confirm-required tool', async () => {
    const { ownerId, chatbot, server } = await connected();
    await client.setMcpServerTools({
      ownerId,
      chatbotId: chatbot.id,
      serverId: server.id,
      picked: [
        { name: 'store_hours', confirm: false },
        { name: 'cancel_order', confirm: true },
      ],
    });
    const hours = await run(chatbot.id, 'shop_store_hours', 'req-2:1');
    expect(hours.status).toBe('ok');
    expect(hours.result).toContain('open 9:00 to 17:00');
    // What it says is the chat service's to fence off as data; here it is only read, never obeyed.
    expect(hours.result).toContain(MCP_INJECTION.slice(0, 30));
    const before = mcp.calls.length;
    const cancel = await run(chatbot.id, 'shop_cancel_order', 'req-2:2', { order_id: '1' });
    expect(cancel).toMatchObject({ status: 'refused', error: MCP_NEEDS_CONFIRMATION });
    // A key that only looks like a card's is no card.
    expect(await run(chatbot.id, 'shop_cancel_order', 'confirm:req-2', { order_id: '1' })).toMatchObject({ status: 'refused' });
    expect(mcp.calls.length).toBe(before);
    expect(await run(chatbot.id, 'shop_huge_report', 'req-2:3')).toMatchObject({
      status: 'refused',
      error: 'There is no tool named shop_huge_report',
    });
  });

  it("runs a confirm-required tool under a confirmed card's call key, once however often it is sent", async () => {
    const { ownerId, chatbot, server } = await connected();
    await client.setMcpServerTools({
      ownerId,
      chatbotId: chatbot.id,
      serverId: server.id,
      picked: [{ name: 'cancel_order', confirm: true }],
    });
    const before = mcp.calls.length;
    const key = `confirm:${randomUUID()}`;
    const [a, b] = await Promise.all([
      run(chatbot.id, 'shop_cancel_order', key, { order_id: '1042' }),
      run(chatbot.id, 'shop_cancel_order', key, { order_id: '1042' }),
    ]);
    const again = await run(chatbot.id, 'shop_cancel_order', key, { order_id: '1042' });
    expect(mcp.calls.slice(before)).toEqual([{ name: 'cancel_order', args: { order_id: '1042' } }]);
    expect(again).toMatchObject({ status: 'ok', result: 'Order 1042 cancelled', repeated: true });
    expect([a.repeated, b.repeated].sort()).toEqual([false, true]);
    const log = await client.listMcpToolCalls({ ownerId, chatbotId: chatbot.id, serverId: server.id });
    expect(log.calls.map((c) => [c.toolName, c.status, c.inputs])).toEqual([['cancel_order', 'ok', { order_id: '1042' }]]);
  });

  it('ends a huge result at the size cap, a tool that never answers at the timeout, and keeps the last error', async () => {
    const { ownerId, chatbot, server } = await connected({ timeoutMs: 1500, maxResultBytes: 64 * 1024 });
    await client.setMcpServerTools({
      ownerId,
      chatbotId: chatbot.id,
      serverId: server.id,
      picked: [
        { name: 'huge_report', confirm: false },
        { name: 'never_answers', confirm: false },
        { name: 'broken', confirm: false },
      ],
    });
    const huge = await run(chatbot.id, 'shop_huge_report', 'req-3:1');
    expect(huge).toMatchObject({ status: 'failed', error: `The answer is larger than ${64 * 1024} bytes`, result: '' });
    const hung = await run(chatbot.id, 'shop_never_answers', 'req-3:2');
    expect(hung.status).toBe('failed');
    expect(hung.error).toMatch(/No complete answer/);
    const broken = await run(chatbot.id, 'shop_broken', 'req-3:3');
    expect(broken).toMatchObject({ status: 'failed', error: 'The tool failed: The order system is down' });
    const [listed] = (await client.listMcpServers({ ownerId, chatbotId: chatbot.id })).servers;
    expect(listed.lastError).toBe('The tool failed: The order system is down');
  }, 30_000);
});
