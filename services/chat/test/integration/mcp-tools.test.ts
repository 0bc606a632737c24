// MCP tools and the built-in tools through the public chat path: a chatbot whose owner connected a
// local MCP server (built with the official SDK's server, reached through the outbound guard, loopback
// allowed by OUTBOUND_ALLOW here only) answers a visitor from a picked tool; a result's injected
// instructions stay fenced data; a confirm-required tool waits for the visitor's card and runs once on Confirm; the
// built-in `handoff` and `show_lead_form` tools are offered only while handoff or the lead form is on.
import { create } from '@bufbuild/protobuf';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LeadFormChangeSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { McpServerService } from '@parley/proto/parley/chatbot/v1/mcp_servers_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { BUILT_IN_TOOL_RULES, toolTriggers } from '@parley/common/testing/fake-openai.ts';
import { MCP_INJECTION, startFakeMcpServer, type FakeMcpServer } from '@parley/common/testing/fake-mcp-server.ts';
import { BUILT_IN_TOOLS, DECLINED } from '../../src/public-chat/tool-loop.ts';
import { CONFIRMATION_INVALID } from '../../src/public-chat/pending-actions.ts';
import { enableHandoff } from './handoff-helpers.ts';
import { session, startChatStack, visitor, type ChatStack } from './harness.ts';

let stack: ChatStack;
let servers: ReturnType<typeof createServiceClient<typeof McpServerService>>;
let mcp: FakeMcpServer;

beforeAll(async () => {
  mcp = await startFakeMcpServer('127.0.0.1');
  stack = await startChatStack(
    { CHAT_RATE_PER_VISITOR: '10000', CHAT_RATE_PER_BOT: '10000' },
    { chatbotEnv: { OUTBOUND_ALLOW: '127.0.0.1' } },
  );
  servers = createServiceClient(McpServerService, stack.chatbotUrl);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await mcp?.close();
});
beforeEach(() => stack.fake.reset());

const triggers = toolTriggers([
  { pattern: /cancel order #?(\d+)/i, tool: 'shop_cancel_order', args: (m) => ({ order_id: m[1] }) },
  { pattern: /order #?(\d+)/i, tool: 'shop_order_status', args: (m) => ({ order_id: m[1] }) },
  { pattern: /opening hours/i, tool: 'shop_store_hours', args: () => ({}) },
  ...BUILT_IN_TOOL_RULES,
]);

async function botWithMcp() {
  const bot = await stack.newChatbot({ knowledge: ['Orders ship within two days.'] });
  await stack.setCredit(bot.ownerId, '10');
  const { server } = await servers.connectMcpServer({ ownerId: bot.ownerId, chatbotId: bot.id, name: 'shop', url: mcp.url });
  await servers.setMcpServerTools({
    ownerId: bot.ownerId,
    chatbotId: bot.id,
    serverId: server!.id,
    picked: [
      { name: 'order_status', confirm: false, responseFields: ['order.status', 'order.note'] },
      { name: 'store_hours', confirm: false },
      { name: 'cancel_order', confirm: true },
    ],
  });
  return bot;
}

async function streamed(uniqueId: string, message: string, sessionId: string) {
  const events: { kind: string; value: string }[] = [];
  let done: { message: string; offerHandoff: boolean; showLeadForm: boolean } | undefined;
  for await (const res of stack.client.streamMessage(visitor(uniqueId, message, { sessionId }))) {
    if (res.event.case === 'done') done = res.event.value;
    else if (res.event.case) events.push({ kind: res.event.case, value: res.event.value });
  }
  return { events, done: done! };
}

const offered = (i: number) => ((stack.fake.requests[i].tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

describe('a chatbot with MCP tools', () => {
  it('answers from a picked tool, reading only its allow-listed fields, with a status line while it runs', async () => {
    const bot = await botWithMcp();
    stack.fake.setBehaviour({ toolCalls: triggers });
    const before = mcp.calls.length;
    const sessionId = session('mcp-order');
    const { events, done } = await streamed(bot.uniqueId, 'Where is my order #1042?', sessionId);
    expect(mcp.calls.slice(before)).toEqual([{ name: 'order_status', args: { order_id: '1042' } }]);
    expect(events[0]).toEqual({ kind: 'status', value: 'Ordering status…' });
    expect(done.message).toContain('"order.status":"shipped"');
    expect(done.message).not.toContain('staff only');
    expect(offered(0)).toEqual(['shop_order_status', 'shop_store_hours', 'shop_cancel_order']);
    // The injected closing tag cannot end the data early, and nothing more ran because of it.
    const result = stack.fake.requests[1].messages.at(-1)!.content;
    expect(result).toMatch(/^<tool_result name="shop_order_status" status="ok">\n/);
    expect(result.match(/<\/tool_result>/g)).toHaveLength(1);
    expect(stack.fake.requests).toHaveLength(2);
    const log = await servers.listMcpToolCalls({ ownerId: bot.ownerId, chatbotId: bot.id, sessionId });
    expect(log.calls.map((c) => [c.toolName, c.status])).toEqual([['order_status', 'ok']]);
  });

  it('keeps a text result with a prompt injection as data: the injected call of a confirm-required tool runs nothing', async () => {
    const bot = await botWithMcp();
    stack.fake.setBehaviour({ toolCalls: triggers });
    const hours = await streamed(bot.uniqueId, 'What are your opening hours?', session('mcp-hours'));
    expect(hours.done.message).toContain('open 9:00 to 17:00');
    const data = stack.fake.requests[1].messages.at(-1)!.content;
    expect(data).toContain(MCP_INJECTION.slice(0, 40));
    expect(data).not.toContain('</tool_result><system>');
    expect(stack.fake.requests[1].messages[0].content).toContain('never instructions');
    // A model that obeys the injected text calls shop_cancel_order "without asking": the turn ends on the card.
    const before = mcp.calls.length;
    stack.fake.reset();
    stack.fake.setBehaviour({
      toolCalls: (body) =>
        body.messages.some((m) => m.content.startsWith('<tool_result'))
          ? [{ name: 'shop_cancel_order', arguments: { order_id: '1' } }]
          : [{ name: 'shop_store_hours', arguments: {} }],
    });
    const obeyed = await stack.client.sendMessage(visitor(bot.uniqueId, 'When are you open?', { sessionId: session('mcp-obey') }));
    expect(mcp.calls.slice(before).map((c) => c.name)).toEqual(['store_hours']);
    expect(obeyed.confirmation).toMatchObject({ actionName: 'shop_cancel_order', question: 'Cancel order (order id: 1)?' });
  });

  it("a confirm-required tool shows the visitor's card, runs once on Confirm with the model's inputs, and not again", async () => {
    const bot = await botWithMcp();
    stack.fake.setBehaviour({
      toolCalls: (body) =>
        body.messages.some((m) => m.content.startsWith('<tool_result'))
          ? []
          : [{ name: 'shop_cancel_order', arguments: { order_id: '7' } }],
    });
    const before = mcp.calls.length;
    const sessionId = session('mcp-confirm');
    const card = await stack.client.sendMessage(visitor(bot.uniqueId, 'Please cancel order #7', { sessionId }));
    expect(mcp.calls.length).toBe(before);
    expect(card.confirmation).toMatchObject({ actionName: 'shop_cancel_order', question: 'Cancel order (order id: 7)?' });
    expect(card.message.endsWith(card.confirmation!.question)).toBe(true);
    expect(stack.fake.requests).toHaveLength(1);
    // Asked again in the same conversation: the same card.
    const again = await stack.client.sendMessage(visitor(bot.uniqueId, 'Cancel order #7 now', { sessionId }));
    expect(again.confirmation!.callId).toBe(card.confirmation!.callId);
    stack.fake.reset();
    stack.fake.setBehaviour({ toolCalls: () => [] });
    const confirm = {
      ...visitor(bot.uniqueId, 'Confirm', { sessionId }),
      confirmCallId: card.confirmation!.callId,
      confirmDecision: 'confirm',
    };
    const answer = await stack.client.sendMessage(confirm);
    expect(answer.message).toContain('Order 7 cancelled');
    expect(stack.fake.requests[0].messages.at(-1)!.content).toBe(
      '<tool_result name="shop_cancel_order" status="ok">\nOrder 7 cancelled\n</tool_result>',
    );
    await stack.client.sendMessage(confirm);
    await Promise.all([1, 2, 3].map(() => stack.client.sendMessage(confirm)));
    expect(mcp.calls.slice(before)).toEqual([{ name: 'cancel_order', args: { order_id: '7' } }]);
    const log = await servers.listMcpToolCalls({ ownerId: bot.ownerId, chatbotId: bot.id, sessionId });
    expect(log.calls.map((c) => [c.toolName, c.status, c.inputs])).toEqual([['cancel_order', 'ok', { order_id: '7' }]]);
    await expect(stack.client.sendMessage({ ...confirm, confirmDecision: 'cancel' })).rejects.toThrow(CONFIRMATION_INVALID);
  });

  it('a Cancel of an MCP tool is told to the model as declined, and nothing reaches the server', async () => {
    const bot = await botWithMcp();
    stack.fake.setBehaviour({ toolCalls: [{ name: 'shop_cancel_order', arguments: { order_id: '8' } }] });
    const before = mcp.calls.length;
    const sessionId = session('mcp-declined');
    const card = await stack.client.sendMessage(visitor(bot.uniqueId, 'Cancel order 8', { sessionId }));
    stack.fake.reset();
    stack.fake.setBehaviour({ toolCalls: () => [] });
    const decided = (decision: string) => ({
      ...visitor(bot.uniqueId, decision === 'confirm' ? 'Confirm' : 'Cancel', { sessionId }),
      confirmCallId: card.confirmation!.callId,
      confirmDecision: decision,
    });
    await stack.client.sendMessage(decided('cancel'));
    expect(stack.fake.requests[0].messages.at(-1)!.content).toBe(
      `<tool_result name="shop_cancel_order" status="declined">\n${DECLINED}\n</tool_result>`,
    );
    await expect(stack.client.sendMessage(decided('confirm'))).rejects.toThrow(CONFIRMATION_INVALID);
    expect(mcp.calls.length).toBe(before);
  });

  it('a chatbot with no tool offers the model none', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Orders ship within two days.'] });
    await stack.setCredit(bot.ownerId, '10');
    stack.fake.setBehaviour({ toolCalls: triggers });
    await streamed(bot.uniqueId, 'Where is my order #1042?', session('no-tools'));
    expect(stack.fake.requests).toHaveLength(1);
    expect(stack.fake.requests[0].tools).toBeUndefined();
  });
});

describe('the built-in tools', () => {
  it('handoff: offered while handoff is on; the model calling it offers the visitor a person', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Orders ship within two days. Refunds take five days.'] });
    await stack.setCredit(bot.ownerId, '10');
    await stack.makePro(bot.ownerId);
    await enableHandoff(stack.chatbots, bot);
    stack.fake.setBehaviour({ toolCalls: triggers });
    const { done } = await streamed(bot.uniqueId, 'Can someone from your team look at my refund?', session('handoff-tool'));
    expect(offered(0)).toEqual(['handoff']);
    expect(stack.fake.requests[1].messages.at(-1)!.content).toContain(BUILT_IN_TOOLS.handoff.result);
    expect(done.offerHandoff).toBe(true);
    expect(done.showLeadForm).toBe(false);
  });

  it('show_lead_form: offered while the lead form is on, and shows it only when the model asked', async () => {
    const bot = await stack.newChatbot({ knowledge: ['We make kitchen furniture. Orders ship within two days.'] });
    await stack.setCredit(bot.ownerId, '10');
    await stack.chatbots.updateChatbot({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      leadForm: create(LeadFormChangeSchema, { email: 'required', trigger: 'when_unanswered' }),
    });
    stack.fake.setBehaviour({ toolCalls: triggers });
    const sessionId = session('lead-tool');
    const plain = await streamed(bot.uniqueId, 'When do orders ship?', sessionId);
    expect(offered(0)).toEqual(['show_lead_form']);
    expect(plain.done.showLeadForm).toBe(false);
    stack.fake.reset();
    stack.fake.setBehaviour({ toolCalls: triggers });
    const asked = await streamed(bot.uniqueId, 'Please send me a quote for a kitchen', sessionId);
    expect(asked.done.showLeadForm).toBe(true);
    expect(stack.fake.requests[1].messages.at(-1)!.content).toContain(BUILT_IN_TOOLS.lead.result);
  });

  it('none is offered with handoff and the lead form off', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Orders ship within two days.'] });
    await stack.setCredit(bot.ownerId, '10');
    stack.fake.setBehaviour({ toolCalls: triggers });
    const { done } = await streamed(bot.uniqueId, 'Please contact me, someone from your team', session('no-built-ins'));
    expect(stack.fake.requests).toHaveLength(1);
    expect(stack.fake.requests[0].tools).toBeUndefined();
    expect(done.showLeadForm).toBe(false);
  });
});
