// Telegram (docs/adr/0044-messaging-channels.md): connecting checks the token with getMe and
// registers the webhook with a random secret; updates are verified in constant time and fail closed;
// a verified text message is queued once by its update_id, answered through the widget's turn
// (knowledge, credit, billing) and sent back with sendMessage, retried after a 429's retry_after;
// the chat is one conversation, shown with its channel. Real chatbot and billing services,
// PostgreSQL, Redis and BullMQ, the fake Telegram Bot API over HTTP.
import { Queue } from 'bullmq';
import { Code } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AccountDeletedSchema } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import { ChatbotDeletedSchema } from '@parley/proto/parley/events/v1/chatbot_deleted_pb.js';
import { LeadFormChangeSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { jobSettled } from '@parley/common/testing/jobs.ts';
import { startFakeTelegram, telegramTextUpdate, type FakeTelegram } from '@parley/common/testing/fake-telegram.ts';
import { BUILT_IN_TOOL_RULES, toolTriggers } from '@parley/common/testing/fake-openai.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECRET_MISSING, SECRET_REFUSED } from '../../src/channels/receive-update.ts';
import {
  NO_CHAT_YET,
  PROVIDER_UNREACHABLE,
  openToken,
  reencryptChannelTokens,
  TEST_MESSAGE,
  TOKEN_REFUSED,
  TOKEN_SHAPE_INVALID,
} from '../../src/channels/connections.ts';
import { ASK_FOR_PERSON, WAITING_FOR_PERSON } from '../../src/channels/answer-update.ts';
import { DeliveryInFlight } from '../../src/channels/deliver.ts';
import { sendAgentReply } from '../../src/channels/send-reply.ts';
import { handoffTimedOut, TIMEOUT_MESSAGE } from '../../src/handoff/handoff-timeout.ts';
import { emailInMessage, leadTaken } from '../../src/leads/channel-lead.ts';
import { DAILY_LIMIT_REACHED } from '../../src/public-chat/daily-limits.ts';
import { ChannelReplyRequestedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import { agent, clientMessageId, enableHandoff } from './handoff-helpers.ts';
import {
  connectionRows,
  disconnectAs,
  disconnectWaitsForProvider,
  lastSystemPrompt,
  rpcError,
  startChatStack,
  type ChatStack,
} from './harness.ts';

const TOKEN = '123456789:AAFakeTokenForParleyTestsOnly_abcdWXYZ';
const KNOWLEDGE = ['The museum opens at ten and closes at six, every day but Monday.'];
const WEBHOOK_BASE = 'https://parley.example/api/channels/telegram';

let stack: ChatStack;
let telegram: FakeTelegram;
beforeAll(async () => {
  telegram = await startFakeTelegram({ bots: { [TOKEN]: 'museum_bot' } });
  stack = await startChatStack({ TELEGRAM_API_BASE: telegram.url, CHANNEL_SEND_ATTEMPTS: '4' });
});
afterAll(async () => {
  await stack?.stop();
  await telegram?.close();
});
beforeEach(() => {
  telegram.sent.length = 0;
  telegram.calls.length = 0;
  telegram.set({ bots: { [TOKEN]: 'museum_bot' }, rateLimited: { times: 0, retryAfter: 1 }, failures: 0, webhookFailures: 0 });
  stack.fake.reset();
});

const text = (message: unknown) => JSON.stringify(message, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

async function connectedBot(credit = '5') {
  const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
  await stack.setCredit(bot.ownerId, credit);
  const { connection } = await stack.client.connectChannel({
    ownerId: bot.ownerId,
    chatbotId: bot.id,
    uniqueId: bot.uniqueId,
    channel: 'telegram',
    token: TOKEN,
    webhookBaseUrl: WEBHOOK_BASE,
  });
  const hook = telegram.webhooks.get(TOKEN)!;
  return { bot, connection: connection!, secret: hook.secretToken };
}

/** Waits (bounded) until `ready` holds: a queued message is answered by the worker in its own time. */
async function until<T>(read: () => Promise<T> | T, ready: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await read();
    if (ready(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const inboundJobs = async () => {
  const queue = new Queue(QUEUES.channelInbound, { connection: stack.redis, prefix: stack.prefix });
  try {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  } finally {
    await queue.close();
  }
};

const post = (connectionId: string, secret: string, update: unknown) =>
  stack.client.receiveChannelUpdate({ channel: 'telegram', connectionId, secret, body: Buffer.from(JSON.stringify(update)) });

describe('connecting Telegram', () => {
  it('checks the token with getMe, registers the webhook with a random secret, and never answers the token', async () => {
    const { bot, connection, secret } = await connectedBot();
    expect(telegram.calls.map((c) => c.method)).toEqual(['getMe', 'setWebhook']);
    expect(telegram.webhooks.get(TOKEN)!.url).toBe(`${WEBHOOK_BASE}/${connection.id}`);
    expect(telegram.webhooks.get(TOKEN)!.url).not.toContain(TOKEN);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect([connection.status, connection.tokenLastFour, connection.botName]).toEqual(['connected', 'WXYZ', 'museum_bot']);
    const listed = await stack.client.listChannelConnections({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(text(listed)).not.toContain(TOKEN);
    expect(text(listed)).not.toContain(secret);
    const row = await stack.parts.prisma.channelConnection.findUniqueOrThrow({ where: { id: connection.id } });
    expect(row.tokenCiphertext).not.toContain(TOKEN.slice(10));
    expect(row.secretHash).not.toContain(secret);
    // One connection per chatbot and channel.
    const again = await rpcError(
      stack.client.connectChannel({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        uniqueId: bot.uniqueId,
        channel: 'telegram',
        token: TOKEN,
        webhookBaseUrl: WEBHOOK_BASE,
      }),
    );
    expect(again.code).toBe(Code.AlreadyExists);
  });

  it('stores nothing for a token Telegram refuses, and calls no one for a malformed one', async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    const connect = (token: string) =>
      stack.client.connectChannel({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        uniqueId: bot.uniqueId,
        channel: 'telegram',
        token,
        webhookBaseUrl: WEBHOOK_BASE,
      });
    const refused = await rpcError(connect('987654321:AARevokedTokenRevokedTokenRevoked_0000'));
    expect([refused.code, refused.rawMessage]).toEqual([Code.FailedPrecondition, TOKEN_REFUSED]);
    expect(refused.message).not.toContain('Revoked');
    const malformed = await rpcError(connect('https://evil.example/#'));
    expect([malformed.code, malformed.rawMessage]).toEqual([Code.InvalidArgument, TOKEN_SHAPE_INVALID]);
    expect(telegram.calls.map((c) => c.method)).toEqual(['getMe']);
    expect(await stack.parts.prisma.channelConnection.count({ where: { chatbotId: bot.id } })).toBe(0);
  });
});

describe("the webhook's verification", () => {
  it('refuses a missing, wrong or truncated secret and an unknown connection, queues nothing and never names the secret', async () => {
    const { connection, secret } = await connectedBot();
    const before = await inboundJobs();
    const update = telegramTextUpdate(5001, 'Is the museum open on Monday?');
    const missing = await rpcError(post(connection.id, '', update));
    expect([missing.code, missing.rawMessage]).toEqual([Code.Unauthenticated, SECRET_MISSING]);
    const refusals = await Promise.all([
      rpcError(post(connection.id, 'not-the-secret', update)),
      rpcError(post(connection.id, secret.slice(0, -1), update)),
      rpcError(post(connection.id, `${secret}x`, update)),
      rpcError(post('00000000-0000-4000-8000-000000000000', secret, update)),
      rpcError(post('../../etc', secret, update)),
    ]);
    for (const err of [missing, ...refusals]) expect(err.message).not.toContain(secret);
    for (const err of refusals) expect([err.code, err.rawMessage]).toEqual([Code.PermissionDenied, SECRET_REFUSED]);
    expect(await inboundJobs()).toBe(before);
    expect(telegram.sent).toEqual([]);
  });

  it('refuses a body that is no Telegram update, and takes an update without text without queueing it', async () => {
    const { connection, secret } = await connectedBot();
    const before = await inboundJobs();
    const bad = (body: string) =>
      rpcError(stack.client.receiveChannelUpdate({ channel: 'telegram', connectionId: connection.id, secret, body: Buffer.from(body) }));
    for (const body of ['{not json', '[]', '{"update_id":"1"}', '{"update_id":1,"message":{"text":"hi","chat":{"id":"x"}}}']) {
      expect((await bad(body)).code).toBe(Code.InvalidArgument);
    }
    const sticker = await post(connection.id, secret, { update_id: 77, message: { message_id: 1, chat: { id: 9 }, sticker: {} } });
    expect(sticker.queued).toBe(false);
    expect(await inboundJobs()).toBe(before);
  });
});

describe('a Telegram message', () => {
  it('is answered from the knowledge through the Bot API, with its sources, as one conversation shown with its channel', async () => {
    const { bot, connection, secret } = await connectedBot();
    await stack.makePro(bot.ownerId);
    expect(
      (await post(connection.id, secret, telegramTextUpdate(6001, 'Is the museum open every day?', { firstName: 'Ada' }))).queued,
    ).toBe(true);
    const [answer] = await until(
      () => telegram.sent,
      (s) => s.length === 1,
      'the answer',
    );
    expect(answer.chat_id).toBe('6001');
    expect(answer.token).toBe(TOKEN);
    expect(answer.text).toContain('The museum opens at ten');
    expect(answer.text).not.toMatch(/\[\d\]/);
    expect(answer.text).toContain('\n\nSources:\n1. ');

    await post(connection.id, secret, telegramTextUpdate(6001, 'And when does the museum close?'));
    await until(
      () => telegram.sent,
      (s) => s.length === 2,
      'the second answer',
    );
    // The second prompt carries the first exchange: the chat's messages continue one conversation.
    expect(text(stack.fake.requests.at(-1)!.messages)).toContain('Is the museum open every day?');
    const { conversations } = await stack.client.listConversations({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(conversations.map((c) => [c.channel, c.messageCount, c.visitorId, c.visitorName])).toEqual([
      ['telegram', 4, 'telegram:6001', 'Ada'],
    ]);
    const { connections } = await stack.client.listChannelConnections({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(connections[0].lastChatId).toBe('6001');
    const { deliveries } = await stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id });
    expect(deliveries.map((d) => [d.kind, d.status, d.attempts])).toEqual([
      ['answer', 'sent', 1],
      ['answer', 'sent', 1],
    ]);
    await stack.applyUsage();
    const records = await stack.billing.prisma.usageRecord.findMany({ where: { ownerId: bot.ownerId } });
    expect(records).toHaveLength(2);
  });

  it('delivered 5 times at once is answered once and billed once', async () => {
    const { bot, connection, secret } = await connectedBot();
    const update = telegramTextUpdate(7001, 'Is the museum open every day?');
    await Promise.all(Array.from({ length: 5 }, () => post(connection.id, secret, update)));
    await until(
      () => telegram.sent,
      (s) => s.length >= 1,
      'the answer',
    );
    // The same update once more, after it was answered (a provider retrying a slow acknowledgement).
    await post(connection.id, secret, update);
    await stack.applyUsage();
    expect(telegram.sent.filter((s) => s.chat_id === '7001')).toHaveLength(1);
    expect(stack.fake.requests).toHaveLength(1);
    const records = await stack.billing.prisma.usageRecord.findMany({ where: { ownerId: bot.ownerId } });
    expect(records).toHaveLength(1);
    expect(await stack.parts.prisma.channelInbound.count({ where: { connectionId: connection.id } })).toBe(1);
  });

  it("is sent again after Telegram's 429 retry_after and a 502, with the attempts on its delivery record", async () => {
    const { bot, connection, secret } = await connectedBot();
    telegram.set({ rateLimited: { times: 1, retryAfter: 1 }, failures: 1 });
    await post(connection.id, secret, telegramTextUpdate(8001, 'Is the museum open every day?'));
    await until(
      () => telegram.sent,
      (s) => s.length === 1,
      'the answer',
    );
    const { deliveries } = await until(
      () => stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id }),
      (r) => r.deliveries[0]?.status === 'sent',
      'the delivery record',
    );
    expect(deliveries.map((d) => [d.status, d.attempts, d.lastError])).toEqual([['sent', 3, '']]);
  });

  it("tells the channel user when the owner's credit is spent, and answers nothing billed", async () => {
    const { bot, connection, secret } = await connectedBot('0');
    await post(connection.id, secret, telegramTextUpdate(8101, 'Is the museum open every day?'));
    const [told] = await until(
      () => telegram.sent,
      (s) => s.length === 1,
      'the refusal',
    );
    expect(told.text.length).toBeGreaterThan(0);
    expect(told.text).not.toContain('The museum opens');
    expect(stack.fake.requests).toHaveLength(0);
    await stack.applyUsage();
    expect(await stack.billing.prisma.usageRecord.count({ where: { ownerId: bot.ownerId } })).toBe(0);
  });

  it("keeps the widget's rules: the visitor day limit counts each Telegram chat and is told there, and the chatbot's language holds", async () => {
    const { bot, connection, secret } = await connectedBot();
    await stack.chatbots.updateChatbot({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      language: 'french',
      limits: { visitorMessagesPerDay: 2 },
    });
    const ask = async (chatId: number, count: number) => {
      await post(connection.id, secret, telegramTextUpdate(chatId, 'Is the museum open every day?'));
      return (
        await until(
          () => telegram.sent.filter((s) => s.chat_id === String(chatId)),
          (s) => s.length === count,
          `message ${count} to ${chatId}`,
        )
      ).at(-1)!.text;
    };
    expect(await ask(8151, 1)).toContain('The museum opens at ten');
    expect(lastSystemPrompt(stack.fake)).toContain('Always reply in French.');
    await ask(8151, 2);
    // The third message of the day from the same chat is told the limit; another chat is another visitor.
    expect(await ask(8151, 3)).toBe(DAILY_LIMIT_REACHED);
    expect(await ask(8152, 1)).toContain('The museum opens at ten');
    expect(stack.fake.requests).toHaveLength(3);
    await stack.applyUsage();
    expect(await stack.billing.prisma.usageRecord.count({ where: { ownerId: bot.ownerId } })).toBe(3);
  });

  it('marks the connection failing with the last error when Telegram revokes the token, and keeps the failed delivery', async () => {
    const { bot, connection, secret } = await connectedBot();
    telegram.set({ bots: {} });
    await post(connection.id, secret, telegramTextUpdate(8201, 'Is the museum open every day?'));
    const { connections } = await until(
      () => stack.client.listChannelConnections({ ownerId: bot.ownerId, chatbotId: bot.id }),
      (r) => r.connections[0]?.status === 'failing',
      'the failing state',
    );
    expect(connections[0].lastError).toBe('401 Unauthorized');
    const { deliveries } = await stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id });
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual([['failed', 1]]);
    // Telegram knows the token again: the next send clears the failing state.
    telegram.set({ bots: { [TOKEN]: 'museum_bot' } });
    await stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: '' });
    const after = await stack.client.listChannelConnections({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect([after.connections[0].status, after.connections[0].lastError]).toEqual(['connected', '']);
  });
});

describe('handoff across Telegram', () => {
  it('a Telegram user asks for a person, an agent answers from the inbox through the Bot API, hands back, and the bot answers again', async () => {
    const { bot, connection, secret } = await connectedBot();
    await stack.makePro(bot.ownerId);
    await enableHandoff(stack.chatbots, bot);
    await post(connection.id, secret, telegramTextUpdate(8301, 'Is the museum open every day? I want to talk to a person'));
    const [first] = await until(
      () => telegram.sent,
      (s) => s.length === 1,
      'the answer',
    );
    expect(first.text).toContain('The museum opens at ten');
    expect(first.text.endsWith(WAITING_FOR_PERSON)).toBe(true);
    const { waiting } = await until(
      () => stack.client.listInbox({ ownerId: bot.ownerId }),
      (r) => r.waiting.some((i) => i.chatbotId === bot.id),
      'the waiting conversation',
    );
    const conversationId = waiting.find((i) => i.chatbotId === bot.id)!.conversationId;
    const owner = { ownerId: bot.ownerId, conversationId };

    // While a person has it, the bot stays silent on Telegram; the agent's reply goes out through the Bot API.
    await stack.client.replyToConversation({
      ...owner,
      agent: agent('Ada'),
      content: 'Hello, Ada from the museum here.',
      clientMessageId: clientMessageId(),
    });
    await until(
      () => telegram.sent,
      (s) => s.length === 2,
      "the agent's reply",
    );
    expect(telegram.sent[1]).toMatchObject({ chat_id: '8301', text: 'Hello, Ada from the museum here.' });
    await post(connection.id, secret, telegramTextUpdate(8301, 'Thanks! And on Monday?'));
    await until(
      () => stack.client.getInboxConversation({ ownerId: bot.ownerId, conversationId }),
      (r) => (r.conversation?.messages ?? []).some((m) => m.content === 'Thanks! And on Monday?'),
      "the visitor's message in the inbox",
    );
    expect(telegram.sent).toHaveLength(2);

    await stack.client.handBackConversation({ ...owner, agent: agent('Ada') });
    await post(connection.id, secret, telegramTextUpdate(8301, 'Is the museum open every day?'));
    await until(
      () => telegram.sent,
      (s) => s.length === 3,
      'the bot again',
    );
    expect(telegram.sent[2].text).toContain('The museum opens at ten');
    // The delivery record is written once Telegram took the message, so it may follow the fake's count by a moment.
    const { deliveries } = await until(
      () => stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id }),
      (r) => r.deliveries.length === 3,
      'the third delivery record',
    );
    expect(deliveries.map((d) => d.kind).sort()).toEqual(['agent', 'answer', 'answer']);
  });

  it("the model's handoff tool offers a Telegram user a person in words, and writing it hands the conversation to the inbox", async () => {
    const { bot, connection, secret } = await connectedBot();
    await stack.makePro(bot.ownerId);
    await enableHandoff(stack.chatbots, bot);
    // The lead form is on too, but a Telegram chat cannot show it: its tool is not offered.
    await stack.chatbots.updateChatbot({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      leadForm: create(LeadFormChangeSchema, { email: 'required' }),
    });
    // A model that calls its handoff tool when someone from the team is wanted, in words the phrase rule does not know.
    stack.fake.setBehaviour({ toolCalls: toolTriggers(BUILT_IN_TOOL_RULES) });
    await post(connection.id, secret, telegramTextUpdate(8401, 'Can someone from your team look at my refund?'));
    const [offered] = await until(
      () => telegram.sent,
      (s) => s.length === 1,
      'the offer',
    );
    expect(((stack.fake.requests[0].tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['handoff']);
    // The handoff tool's result, which the model words its answer from, promises no button a Telegram chat cannot show.
    expect(text(stack.fake.requests.at(-1)!.messages)).not.toMatch(/button/i);
    expect(offered.text.endsWith(ASK_FOR_PERSON)).toBe(true);
    expect((await stack.client.listInbox({ ownerId: bot.ownerId })).waiting.some((i) => i.chatbotId === bot.id)).toBe(false);

    await post(connection.id, secret, telegramTextUpdate(8401, 'talk to a person'));
    const sent = await until(
      () => telegram.sent,
      (s) => s.length === 2,
      'the handoff',
    );
    expect(sent[1].text.endsWith(WAITING_FOR_PERSON)).toBe(true);
    await until(
      () => stack.client.listInbox({ ownerId: bot.ownerId }),
      (r) => r.waiting.some((i) => i.chatbotId === bot.id),
      'the waiting conversation',
    );
  });
});

describe("the team's messages on the channel", () => {
  /** A Telegram user who asked for a person: the conversation waits in the inbox. */
  async function waitingTelegramUser(chatId: number) {
    const { bot, connection, secret } = await connectedBot();
    await stack.makePro(bot.ownerId);
    await enableHandoff(stack.chatbots, bot);
    await post(connection.id, secret, telegramTextUpdate(chatId, 'I want to talk to a person'));
    await until(
      () => telegram.sent,
      (s) => s.length === 1,
      'the answer',
    );
    const { waiting } = await until(
      () => stack.client.listInbox({ ownerId: bot.ownerId }),
      (r) => r.waiting.some((i) => i.chatbotId === bot.id),
      'the waiting conversation',
    );
    const conversationId = waiting.find((i) => i.chatbotId === bot.id)!.conversationId;
    return { bot, connection, secret, conversationId };
  }

  const outboundSettled = async () => {
    const queue = new Queue(QUEUES.channelOutbound, { connection: stack.redis, prefix: stack.prefix });
    try {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return Object.values(counts).reduce((a, b) => a + b, 0) === 0;
    } finally {
      await queue.close();
    }
  };

  it("sends an agent's reply once when its job is delivered several times at once, through the queue and directly", async () => {
    const { bot, connection, conversationId } = await waitingTelegramUser(8401);
    // Telegram holds the first send back (429, retry after 1 s): the other deliveries arrive while it is in flight.
    telegram.set({ rateLimited: { times: 1, retryAfter: 1 } });
    const { message } = await stack.client.replyToConversation({
      ownerId: bot.ownerId,
      conversationId,
      agent: agent('Ada'),
      content: 'Hello from the museum, exactly once.',
      clientMessageId: clientMessageId(),
    });
    const event = create(ChannelReplyRequestedSchema, { conversationId, messageId: message!.id, text: message!.content });
    // The same job again under other ids (a stalled job run twice), and the sender called directly five times at once.
    const replies = createProducer(stack.redis, QUEUES.channelOutbound, ChannelReplyRequestedSchema, { prefix: stack.prefix });
    try {
      await Promise.all([1, 2, 3].map((n) => replies.publish(event, `agent:${message!.id}:again-${n}`)));
    } finally {
      await replies.close();
    }
    const direct = await Promise.allSettled(Array.from({ length: 5 }, () => sendAgentReply(stack.parts.deps.channels, event)));
    for (const r of direct) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DeliveryInFlight);
      else expect(r.value?.status).toBe('sent');
    }
    await until(outboundSettled, (done) => done, 'the outbound jobs');
    await until(
      () => telegram.sent.filter((s) => s.text === 'Hello from the museum, exactly once.'),
      (s) => s.length >= 1,
      "the agent's reply",
    );
    // Once more after it went out: the finished record answers, nothing is sent.
    const again = await sendAgentReply(stack.parts.deps.channels, event);
    expect(again?.status).toBe('sent');
    expect(telegram.sent.filter((s) => s.text === 'Hello from the museum, exactly once.')).toHaveLength(1);
    const rows = await stack.parts.prisma.channelDelivery.findMany({ where: { connectionId: connection.id, kind: 'agent' } });
    expect(rows.map((r) => [r.status, r.attempts, r.messageId])).toEqual([['sent', 2, BigInt(message!.id)]]);
  });

  it("takes over the claim of a sender that died (its time is up) and sends; a live sender's claim is left to it", async () => {
    const { bot, connection, conversationId } = await waitingTelegramUser(8402);
    const { message } = await stack.client.replyToConversation({
      ownerId: bot.ownerId,
      conversationId,
      agent: agent('Ada'),
      content: 'First reply.',
      clientMessageId: clientMessageId(),
    });
    await until(
      () => telegram.sent,
      (s) => s.length === 2,
      'the first reply',
    );
    // A second reply whose record another sender claimed: left while the claim lasts, taken over once its time is up.
    const stored = await stack.parts.prisma.message.create({
      data: { conversationId, role: 'agent', content: 'Second reply.', authorId: 'user-ada', authorName: 'Ada' },
    });
    await stack.parts.prisma.channelDelivery.create({
      data: {
        connectionId: connection.id,
        chatId: '8402',
        kind: 'agent',
        status: 'sending',
        messageId: stored.id,
        claimedUntil: new Date(Date.now() + 60_000),
      },
    });
    const event = create(ChannelReplyRequestedSchema, { conversationId, messageId: String(stored.id), text: stored.content });
    await expect(sendAgentReply(stack.parts.deps.channels, event)).rejects.toBeInstanceOf(DeliveryInFlight);
    expect(telegram.sent).toHaveLength(2);
    await stack.parts.prisma.channelDelivery.update({
      where: { messageId: stored.id },
      data: { claimedUntil: new Date(Date.now() - 1000) },
    });
    expect((await sendAgentReply(stack.parts.deps.channels, event))?.status).toBe('sent');
    expect(telegram.sent.at(-1)).toMatchObject({ chat_id: '8402', text: 'Second reply.' });
    // A message that is not the conversation's, or not the team's (the visitor's own), is never sent.
    const visitors = await stack.parts.prisma.message.findFirstOrThrow({ where: { conversationId, role: 'user' } });
    expect(await sendAgentReply(stack.parts.deps.channels, { ...event, messageId: String(visitors.id) })).toBeNull();
    expect(await sendAgentReply(stack.parts.deps.channels, { ...event, messageId: 'x1' })).toBeNull();
    expect(message).toBeDefined();
  });

  it('tells the Telegram user when the wait ran out, asking for their email there, once however often the job runs', async () => {
    const { bot, connection, conversationId } = await waitingTelegramUser(8403);
    const { handoffRequestedAt } = await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: conversationId } });
    const due = { conversationId, requestedAt: handoffRequestedAt! };
    const ended = await Promise.all([1, 2, 3].map(() => handoffTimedOut(stack.parts.deps.handoffCore, due)));
    expect(ended.filter(Boolean)).toHaveLength(1);
    await until(
      () => telegram.sent,
      (s) => s.length === 2,
      'the timeout message',
    );
    expect(telegram.sent[1]).toMatchObject({ chat_id: '8403', text: TIMEOUT_MESSAGE });
    await until(outboundSettled, (done) => done, 'the outbound jobs');
    expect(telegram.sent).toHaveLength(2);
    const { deliveries } = await stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id });
    expect(deliveries.map((d) => [d.kind, d.status]).sort()).toEqual([
      ['answer', 'sent'],
      ['notice', 'sent'],
    ]);
  });

  it('takes the email a Telegram user writes back after the wait ran out as their lead, with the channel and their chat id', async () => {
    const { bot, connection, secret, conversationId } = await waitingTelegramUser(8404);
    const { handoffRequestedAt } = await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: conversationId } });
    expect(await handoffTimedOut(stack.parts.deps.handoffCore, { conversationId, requestedAt: handoffRequestedAt! })).toBe(true);
    await until(
      () => telegram.sent,
      (s) => s.length === 2,
      'the timeout message',
    );
    const requestsBefore = stack.fake.requests.length;
    // The same update twice (a provider's retry): one lead, one thanks.
    const update = telegramTextUpdate(8404, 'Sure, it is ada.lovelace@example.com.');
    await post(connection.id, secret, update);
    await post(connection.id, secret, update);
    const [, , thanks] = await until(
      () => telegram.sent,
      (s) => s.length === 3,
      'the thanks',
    );
    expect(thanks).toMatchObject({ chat_id: '8404', text: leadTaken('ada.lovelace@example.com') });
    // No model was called for it, nothing billed.
    expect(stack.fake.requests).toHaveLength(requestsBefore);
    const { leads } = await stack.client.listLeads({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(leads.map((l) => [l.email, l.source, l.channel, l.channelContact, l.conversationId])).toEqual([
      ['ada.lovelace@example.com', 'handoff_timeout', 'telegram', '8404', conversationId],
    ]);

    // Once the bot answered again, an address in a message is a question like any other: no lead is changed.
    await post(connection.id, secret, telegramTextUpdate(8404, 'Is the museum open every day?'));
    await until(
      () => telegram.sent,
      (s) => s.length === 4,
      'the answer',
    );
    await post(connection.id, secret, telegramTextUpdate(8404, 'Can grace@example.com visit on Monday?'));
    await until(
      () => telegram.sent,
      (s) => s.length === 5,
      'the second answer',
    );
    expect(telegram.sent[4].text).not.toBe(leadTaken('grace@example.com'));
    const after = await stack.client.listLeads({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(after.leads.map((l) => l.email)).toEqual(['ada.lovelace@example.com']);
  });
});

describe("a channel user's email in a message", () => {
  it("is found in a sentence and checked by the lead form's rule", () => {
    expect(emailInMessage('my email is ada@example.com.')).toBe('ada@example.com');
    expect(emailInMessage('<ada@mail.example.org>')).toBe('ada@mail.example.org');
    expect(emailInMessage('no address here')).toBeNull();
    expect(emailInMessage('ada@localhost')).toBeNull();
    expect(emailInMessage('@@@')).toBeNull();
  });
});

describe('deletion', () => {
  it("removes a deleted chatbot's connection (deleteWebhook, credentials gone), and a deleted owner's through AccountDeleted", async () => {
    const first = await connectedBot();
    const chatbotDeleted = createProducer(stack.redis, QUEUES.chatbotDeleted, ChatbotDeletedSchema, { prefix: stack.prefix });
    const settled = jobSettled(stack.parts.chatbotDeletedWorker!, `chatbot-deleted.${first.bot.id}`);
    await chatbotDeleted.publish(
      create(ChatbotDeletedSchema, { chatbotId: first.bot.id, ownerId: first.bot.ownerId, occurredAt: timestampFromDate(new Date()) }),
      `chatbot-deleted.${first.bot.id}`,
    );
    expect((await settled).state).toBe('completed');
    await chatbotDeleted.close();
    expect(await stack.parts.prisma.channelConnection.count({ where: { id: first.connection.id } })).toBe(0);
    expect(telegram.calls.at(-1)!.method).toBe('deleteWebhook');
    expect((await rpcError(post(first.connection.id, first.secret, telegramTextUpdate(1, 'hi')))).code).toBe(Code.PermissionDenied);

    const second = await connectedBot();
    const accountDeleted = createProducer(stack.redis, QUEUES.accountDeletedChat, AccountDeletedSchema, { prefix: stack.prefix });
    const gone = jobSettled(stack.parts.accountDeletedWorker!, `account-deleted.${second.bot.ownerId}`);
    await accountDeleted.publish(
      create(AccountDeletedSchema, { userId: second.bot.ownerId, occurredAt: timestampFromDate(new Date()) }),
      `account-deleted.${second.bot.ownerId}`,
    );
    expect((await gone).state).toBe('completed');
    await accountDeleted.close();
    expect(await stack.parts.prisma.channelConnection.count({ where: { ownerId: second.bot.ownerId } })).toBe(0);
  });
});

describe('a rotation of PROVIDER_KEY_ENCRYPTION_KEY', () => {
  it('seals the bot tokens again under the new key, which still send', async () => {
    const { bot, connection } = await connectedBot();
    const next = Buffer.alloc(32, 7);
    const ciphers = { current: next, previous: stack.config.PROVIDER_KEY_ENCRYPTION_KEY };
    const first = await reencryptChannelTokens(stack.parts.prisma, ciphers);
    expect(first.reencrypted).toBeGreaterThanOrEqual(1);
    expect((await reencryptChannelTokens(stack.parts.prisma, ciphers)).reencrypted).toBe(0);
    const row = await stack.parts.prisma.channelConnection.findUniqueOrThrow({ where: { id: connection.id } });
    expect(openToken({ current: next }, row)).toBe(TOKEN);
    expect(bot.ownerId).toBeTruthy();
  });
});

describe('the owner', () => {
  it('sends a test message to a chat id or the last chat, and disconnects (deleteWebhook, credentials removed)', async () => {
    const { bot, connection } = await connectedBot();
    const none = await rpcError(stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: '' }));
    expect([none.code, none.rawMessage]).toEqual([Code.FailedPrecondition, NO_CHAT_YET]);
    const badChat = await rpcError(
      stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: '@x/../y' }),
    );
    expect(badChat.code).toBe(Code.InvalidArgument);
    const { delivery } = await stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: '4242' });
    expect([delivery!.kind, delivery!.status]).toEqual(['test', 'sent']);
    expect(telegram.sent.map((s) => [s.chat_id, s.text])).toEqual([['4242', TEST_MESSAGE]]);
    // Another workspace sees none of it.
    const foreign = await rpcError(
      stack.client.sendChannelTestMessage({ ownerId: 'someone-else', connectionId: connection.id, chatId: '4242' }),
    );
    expect(foreign.code).toBe(Code.NotFound);
    expect((await stack.client.disconnectChannel({ ownerId: 'someone-else', connectionId: connection.id })).removed).toBe(false);

    expect((await stack.client.disconnectChannel({ ownerId: bot.ownerId, connectionId: connection.id })).removed).toBe(true);
    expect(telegram.calls.at(-1)!.method).toBe('deleteWebhook');
    expect(telegram.webhooks.has(TOKEN)).toBe(false);
    expect(await stack.parts.prisma.channelConnection.count({ where: { id: connection.id } })).toBe(0);
    expect(await stack.parts.prisma.channelDelivery.count({ where: { connectionId: connection.id } })).toBe(0);
  });
});

describe('disconnecting (docs/adr/0076-registrations-at-the-provider.md)', () => {
  it('a token Telegram no longer accepts still disconnects', async () => {
    const { bot, connection } = await connectedBot();
    telegram.set({ bots: {} });
    expect((await disconnectAs(stack, bot, connection.id)).removed).toBe(true);
    expect(await connectionRows(stack, connection.id)).toBe(0);
  });

  it('Telegram out of reach keeps the connection with the error, and the next try removes it', async () => {
    const { bot, connection } = await connectedBot();
    await disconnectWaitsForProvider(stack, bot, connection.id, {
      outage: () => telegram.set({ webhookFailures: 1 }),
      message: PROVIDER_UNREACHABLE,
      registered: () => telegram.webhooks.has(TOKEN),
    });
  });
});
