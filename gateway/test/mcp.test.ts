// Every chatbot as an MCP server (POST /api/v1/mcp) with the official MCP SDK's client, unmodified,
// against the real gateway, auth, chatbot, chat and billing services: the tools of the chatbots the
// key reaches, `ask` answered through the chat service and billed exactly once to the key,
// `search_knowledge` answered from retrieval with no model call, and the refusals: a key without
// the mcp scope, a revoked key, another workspace's chatbots, inputs too large, methods other than POST.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { scopeMissing } from '../src/v1/call.ts';
import { MCP_POST_ONLY } from '../src/features/mcp/mcp-route.ts';
import { chatbotTools, slugOf } from '../src/features/mcp/tools.ts';
import { apiKeys, chatbotWithKnowledge, v1 } from './api-v1-fixtures.ts';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, startStack, type Stack } from './stack.ts';
import { sql } from './workspace-fixtures.ts';

let stack: Stack;
let fake: FakeOpenAI;
let keys: ReturnType<typeof apiKeys>;
let owner: Owner;
let other: Owner;
let cafe: string;
let mcpKey: { id: string; secret: string };

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply: () => 'We open at nine in the morning [1].' });
  stack = await startStack({
    chatEnv: { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: fake.url, CHAT_RATE_PER_VISITOR: '1000', CHAT_RATE_PER_BOT: '1000' },
    billingEnv: { INITIAL_CREDIT: '5' },
  });
  keys = apiKeys(stack);
  owner = await registerOwner(stack, 'mcp-owner');
  await makePro(stack, owner);
  other = await registerOwner(stack, 'mcp-other');
  await chatbotWithKnowledge(stack, owner, 'Bike Shop');
  cafe = await chatbotWithKnowledge(stack, owner, 'Café Crème');
  await chatbotWithKnowledge(stack, other, 'Their Bot');
  mcpKey = await keys.create(owner, ['mcp']);
});
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

/** An MCP client of the SDK, connected (initialized) with the key. */
async function connect(secret: string): Promise<Client> {
  const client = new Client({ name: 'parley-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.url}/api/v1/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${secret}` } },
  });
  await client.connect(transport);
  return client;
}

const textOf = (result: unknown) =>
  ((result as { content: unknown }).content as { type: string; text: string }[]).map((c) => c.text).join('');

describe('tool names', () => {
  it('read a chatbot by its name, and stay apart for names that read the same', () => {
    expect(slugOf('Café Crème!')).toBe('cafe_creme');
    const tools = chatbotTools([
      { id: 'aaaaaaaa-0000-4000-8000-000000000001', uniqueId: 'u1', name: 'Help desk' },
      { id: 'bbbbbbbb-0000-4000-8000-000000000002', uniqueId: 'u2', name: 'Help-Desk' },
      { id: 'cccccccc-0000-4000-8000-000000000003', uniqueId: 'u3', name: '客服' },
      { id: 'dddddddd-0000-4000-8000-000000000004', uniqueId: 'u4', name: 'x'.repeat(200) },
    ]);
    expect(tools.map((t) => t.ask)).toEqual([
      'ask_help_desk_aaaaaaaa',
      'ask_help_desk_bbbbbbbb',
      'ask_chatbot_cccccccc',
      `ask_${'x'.repeat(32)}`,
    ]);
    for (const t of tools) expect(t.searchKnowledge).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });
});

describe('the MCP server', () => {
  it("lists a pair of tools per chatbot of the key's workspace, and none of another's", async () => {
    const client = await connect(mcpKey.secret);
    expect(client.getServerVersion()?.name).toBe('parley');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'ask_bike_shop',
      'ask_cafe_creme',
      'search_knowledge_bike_shop',
      'search_knowledge_cafe_creme',
    ]);
    const ask = tools.find((t) => t.name === 'ask_bike_shop')!;
    expect(ask.description).toContain('Bike Shop');
    expect(ask.inputSchema.required).toEqual(['message']);
    expect(tools.find((t) => t.name === 'search_knowledge_bike_shop')!.annotations?.readOnlyHint).toBe(true);
    await client.close();

    const theirs = await connect((await keys.create(other, ['mcp'])).secret);
    expect((await theirs.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask_their_bot', 'search_knowledge_their_bot']);
    // The owner's chatbot is no tool of theirs.
    const call = await theirs.callTool({ name: 'ask_bike_shop', arguments: { message: 'Hello?' } }).catch((e: Error) => e);
    expect(call instanceof Error ? call.message : textOf(call)).toContain('ask_bike_shop not found');
    await theirs.close();
  });

  it('lists only the chatbots a key kept to some may use', async () => {
    const kept = await keys.create(owner, ['mcp'], { chatbotIds: [cafe] });
    const client = await connect(kept.secret);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask_cafe_creme', 'search_knowledge_cafe_creme']);
    await client.close();
  });

  it('answers ask with the answer and its sources, through the chat, billed once to the key', async () => {
    const key = await keys.create(owner, ['mcp']);
    const client = await connect(key.secret);
    const asked = fake.requests.length;
    const result = await client.callTool({ name: 'ask_bike_shop', arguments: { message: 'When do you open?' } });
    expect(result.isError).toBeFalsy();
    expect(fake.requests.length).toBe(asked + 1);
    const answer = result.structuredContent as {
      answer: string;
      conversationId: string;
      sources: { entryId: string; title: string }[];
      usage: { promptTokens: number; completionTokens: number; totalTokens: number };
    };
    expect(answer.answer).toBe('We open at nine in the morning [1].');
    expect(answer.sources).toHaveLength(1);
    expect(textOf(result)).toContain(`Sources:\n[1] ${answer.sources[0].title}`);
    expect(answer.usage.totalTokens).toBeGreaterThan(0);

    // One usage record, the key's, of the model's counts; the balance down by exactly its cost.
    const records = () =>
      sql(stack.billingDatabase, `SELECT "totalTokens", "totalCost"::text AS cost FROM $schema."UsageRecord" WHERE "apiKeyId" = $1`, [
        key.id,
      ]);
    await expect.poll(async () => (await records()).length, { timeout: 10_000 }).toBe(1);
    const [record] = await records();
    expect(record.totalTokens).toBe(answer.usage.totalTokens);
    const paid = () =>
      sql(
        stack.billingDatabase,
        `SELECT (a."creditBalance" + COALESCE((SELECT SUM(u."totalCost") FROM $schema."UsageRecord" u WHERE u."userId" = a."userId"), 0))::text AS whole
           FROM $schema."Account" a WHERE a."userId" = $1`,
        [owner.userId],
      );
    await expect.poll(async () => Number((await paid())[0].whole), { timeout: 10_000 }).toBe(5);

    // The conversation goes on, and is the owner's, as a chat through the API is.
    const next = await client.callTool({
      name: 'ask_bike_shop',
      arguments: { message: 'And on Sundays?', conversationId: answer.conversationId },
    });
    expect((next.structuredContent as { conversationId: string }).conversationId).toBe(answer.conversationId);
    await expect.poll(async () => (await records()).length, { timeout: 10_000 }).toBe(2);
    const [conversation] = await sql(stack.chatDatabase, `SELECT "messageCount" FROM $schema."Conversation" WHERE "sessionId" = $1`, [
      answer.conversationId,
    ]);
    expect(conversation.messageCount).toBe(4);
    await client.close();
  });

  it('answers search_knowledge with passages and their sources, calling no model', async () => {
    const client = await connect(mcpKey.secret);
    const asked = fake.requests.length;
    const result = await client.callTool({ name: 'search_knowledge_bike_shop', arguments: { query: 'when does the shop open', limit: 3 } });
    expect(result.isError).toBeFalsy();
    const { passages } = result.structuredContent as { passages: { text: string; source: { entryId: string; title: string } }[] };
    expect(passages.length).toBeGreaterThanOrEqual(1);
    expect(passages[0].text).toContain('opens at nine');
    expect(passages[0].source.entryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(textOf(result)).toContain('opens at nine');
    expect(fake.requests.length).toBe(asked);
    await client.close();
  });

  it('refuses inputs out of bounds as the tool’s error, and a body too large as 413', async () => {
    const client = await connect(mcpKey.secret);
    const long = await client.callTool({ name: 'ask_bike_shop', arguments: { message: 'x'.repeat(4001) } }).catch((e: Error) => e);
    expect(long instanceof Error ? long.message : textOf(long)).toMatch(/message/i);
    const empty = await client.callTool({ name: 'search_knowledge_bike_shop', arguments: { query: '   ' } }).catch((e: Error) => e);
    expect(empty instanceof Error ? empty.message : textOf(empty)).toContain('query is required');
    await client.close();
    const huge = await api(stack.url, '/api/v1/mcp', {
      token: mcpKey.secret,
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ask_bike_shop', arguments: { message: 'x'.repeat(2_000_000) } },
      },
    });
    expect(huge.status).toBe(413);
  });

  it('answers a malformed message with a JSON-RPC or API error of status 4xx, never 5xx', async () => {
    for (const body of [{ jsonrpc: '1.0' }, { jsonrpc: '2.0', id: 1, method: 'no/such/method' }, [1, 2]]) {
      const res = await api(stack.url, '/api/v1/mcp', {
        token: mcpKey.secret,
        headers: { accept: 'application/json, text/event-stream' },
        body,
      });
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
    }
    const unknown = await api(stack.url, '/api/v1/mcp', {
      token: mcpKey.secret,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 7, method: 'no/such/method' },
    });
    expect(unknown.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32601 } });
  });

  it('answers other methods 405, with Allow: POST', async () => {
    const res = await v1(stack, '/mcp', mcpKey.secret, { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.error.message).toBe(MCP_POST_ONLY);
  });
});

describe('keys that may not use it', () => {
  it('refuses a key without the mcp scope with 403, which the SDK raises', async () => {
    const chat = await keys.create(owner, ['chat', 'chatbots:read']);
    const failure = await connect(chat.secret).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StreamableHTTPError);
    expect((failure as StreamableHTTPError).code).toBe(403);
    expect((failure as Error).message).toContain(JSON.stringify({ code: 'forbidden', message: scopeMissing('mcp') }));
  });

  it('refuses a revoked key with 401', async () => {
    const doomed = await keys.create(owner, ['mcp']);
    const client = await connect(doomed.secret);
    await keys.revoke(owner, doomed.id);
    // The gateway forgets the key when auth announces the revocation.
    await expect
      .poll(async () => (await client.listTools().catch((e: unknown) => e)) instanceof StreamableHTTPError, { timeout: 10_000 })
      .toBe(true);
    const failure = (await client.listTools().catch((e: unknown) => e)) as StreamableHTTPError;
    expect(failure.code).toBe(401);
    const again = await connect(doomed.secret).catch((e: unknown) => e);
    expect((again as StreamableHTTPError).code).toBe(401);
  });
});
