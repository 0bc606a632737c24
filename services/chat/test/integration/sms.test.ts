// SMS through Twilio (docs/adr/0070-sms-channel.md): connecting reads the account with the Account
// SID and Auth Token and finds the number among its own (refused: nothing stored), the Auth Token
// sealed and shown by its last four; every webhook request must carry X-Twilio-Signature over the
// exact URL and the sorted parameters under the Auth Token (fail closed: missing, wrong, truncated,
// the URL or a parameter changed after signing; nothing queued, no expected value told); a text is
// queued once by its MessageSid, answered through the widget's turn and sent with the Messages API
// (1,600-character parts, a plain sources footer, retried on 429/5xx), each with a delivery record
// that Twilio's status callbacks move forward; STOP, START and HELP are never answered, and nothing
// is sent to a number that wrote STOP; an agent's inbox reply goes out by SMS; a lead keeps the
// number in E.164. Real chatbot and billing services, PostgreSQL, Redis and BullMQ, the fake Twilio
// API over HTTP.
import { Queue } from 'bullmq';
import { Code } from '@connectrpc/connect';
import { QUEUES } from '@parley/common/queues.ts';
import {
  inboundSmsParams,
  smsSid,
  startFakeTwilio,
  twilioSignatureOf,
  type FakeTwilio,
  type TwilioSentMessage,
} from '@parley/common/testing/fake-twilio.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openToken, removeChatbotChannels } from '../../src/channels/connections.ts';
import { TWILIO_NUMBER_NOT_OWNED, TWILIO_REFUSED, TWILIO_SID_INVALID, TWILIO_UNREACHABLE } from '../../src/channels/sms-connections.ts';
import { TWILIO_SIGNATURE_MISSING, TWILIO_SIGNATURE_REFUSED } from '../../src/channels/sms-receive.ts';
import { OPTED_OUT, SMS_MAX_TEXT } from '../../src/channels/sms.ts';
import { SOURCES_HEADING } from '../../src/channels/format.ts';
import { handoffTimedOut, TIMEOUT_MESSAGE } from '../../src/handoff/handoff-timeout.ts';
import { leadTaken } from '../../src/leads/channel-lead.ts';
import { agent, clientMessageId, enableHandoff } from './handoff-helpers.ts';
import { connectionRows, disconnectAs, disconnectWaitsForProvider, rpcError, startChatStack, type ChatStack } from './harness.ts';

const SID = 'AC0123456789abcdef0123456789abcdef';
const AUTH_TOKEN = '0123456789abcdef0123456789ab1234';
const NUMBER = '+15550100100';
const KNOWLEDGE = ['The museum opens at ten and closes at six, every day but Monday.'];
const WEBHOOK_BASE = 'https://parley.example/api/channels/sms';

let stack: ChatStack;
let twilio: FakeTwilio;
const accounts = { [SID]: { authToken: AUTH_TOKEN, numbers: [NUMBER], name: 'City Museum' } };
beforeAll(async () => {
  twilio = await startFakeTwilio({ accounts });
  stack = await startChatStack({ TWILIO_API_BASE: twilio.url, CHANNEL_SEND_ATTEMPTS: '4' });
});
afterAll(async () => {
  await stack?.stop();
  await twilio?.close();
});
beforeEach(() => {
  twilio.sent.length = 0;
  twilio.set({ accounts, rateLimited: 0, failures: 0, numberFailures: 0 });
  stack.fake.reset();
});

const text = (message: unknown) => JSON.stringify(message, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

async function until<T>(read: () => Promise<T> | T, ready: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
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

const connectInput = (bot: { ownerId: string; id: string; uniqueId: string }, over: Record<string, string> = {}) => ({
  ownerId: bot.ownerId,
  chatbotId: bot.id,
  uniqueId: bot.uniqueId,
  channel: 'sms',
  token: AUTH_TOKEN,
  accountId: SID,
  phoneNumber: NUMBER,
  webhookBaseUrl: WEBHOOK_BASE,
  ...over,
});

async function connected(credit = '5') {
  const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
  await stack.setCredit(bot.ownerId, credit);
  const { connection } = await stack.client.connectChannel(connectInput(bot));
  return { bot, connection: connection!, url: `${WEBHOOK_BASE}/${connection!.id}` };
}

/** A webhook request as the gateway hands it over: the URL Twilio called, the parameters, the header as received. */
const post = (connectionId: string, url: string, params: Record<string, string>, signature: string) =>
  stack.client.receiveChannelUpdate({
    channel: 'sms',
    connectionId,
    secret: signature,
    body: Buffer.from(JSON.stringify({ url, params: Object.entries(params) })),
  });
const signed = (connectionId: string, url: string, params: Record<string, string>) =>
  post(connectionId, url, params, twilioSignatureOf(AUTH_TOKEN, url, params));
const sms = (connectionId: string, url: string, from: string, body: string, messageSid?: string) =>
  signed(connectionId, url, inboundSmsParams({ accountSid: SID, authToken: AUTH_TOKEN, from, to: NUMBER, body, messageSid }));
/** Twilio's status callback about a message sent, posted to its StatusCallback (here: through the RPC the gateway calls). */
const statusOf = (connectionId: string, message: TwilioSentMessage, status: string, errorCode?: string) =>
  signed(connectionId, message.statusCallback, {
    SmsSid: message.sid,
    SmsStatus: status,
    MessageStatus: status,
    To: message.to,
    MessageSid: message.sid,
    AccountSid: SID,
    From: message.from,
    ApiVersion: '2010-04-01',
    ...(errorCode ? { ErrorCode: errorCode } : {}),
  });
const sentTo = (to: string, count: number, what: string) =>
  until(
    () => twilio.sent.filter((m) => m.to === to),
    (m) => m.length >= count,
    what,
  );

describe('connecting SMS', () => {
  it('reads the account, finds the number among its own, seals the Auth Token and shows its last four only', async () => {
    const { bot, connection } = await connected();
    expect([connection.channel, connection.status, connection.tokenLastFour, connection.botName, connection.accountId]).toEqual([
      'sms',
      'connected',
      '1234',
      NUMBER,
      SID,
    ]);
    const listed = await stack.client.listChannelConnections({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(text(listed)).not.toContain(AUTH_TOKEN);
    const row = await stack.parts.prisma.channelConnection.findUniqueOrThrow({ where: { id: connection.id } });
    expect(row.tokenCiphertext).not.toContain(AUTH_TOKEN.slice(0, 12));
    expect(openToken(stack.parts.deps.channels.ciphers, row)).toBe(AUTH_TOKEN);
    expect(row.callbackUrl).toBe(`${WEBHOOK_BASE}/${connection.id}`);
  });

  it('stores nothing for credentials Twilio refuses or a number the account does not own, and calls no one for a malformed SID', async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    const wrong = await rpcError(stack.client.connectChannel(connectInput(bot, { token: 'ffffffffffffffffffffffffffffffff' })));
    expect([wrong.code, wrong.rawMessage]).toEqual([Code.FailedPrecondition, TWILIO_REFUSED]);
    const notOwned = await rpcError(stack.client.connectChannel(connectInput(bot, { phoneNumber: '+15550100999' })));
    expect([notOwned.code, notOwned.rawMessage]).toEqual([Code.FailedPrecondition, TWILIO_NUMBER_NOT_OWNED]);
    const malformed = await rpcError(stack.client.connectChannel(connectInput(bot, { accountId: '../../Messages' })));
    expect([malformed.code, malformed.rawMessage]).toEqual([Code.InvalidArgument, TWILIO_SID_INVALID]);
    expect(await stack.parts.prisma.channelConnection.count({ where: { chatbotId: bot.id } })).toBe(0);
  });
});

describe("the number's webhook at Twilio (docs/adr/0076-registrations-at-the-provider.md)", () => {
  it("is set to the connection's URL with POST on connect, and cleared on disconnect", async () => {
    twilio.setNumber(NUMBER, { smsUrl: '', smsMethod: 'GET' });
    const { bot, connection, url } = await connected();
    expect(twilio.number(NUMBER)).toMatchObject({ smsUrl: url, smsMethod: 'POST' });
    expect((await disconnectAs(stack, bot, connection.id)).removed).toBe(true);
    expect(twilio.number(NUMBER)).toMatchObject({ smsUrl: '', smsMethod: 'POST' });
    expect(await connectionRows(stack, connection.id)).toBe(0);
  });

  it('is left alone on disconnect when the number was pointed elsewhere since', async () => {
    const { bot, connection } = await connected();
    twilio.setNumber(NUMBER, { smsUrl: 'https://elsewhere.example/sms' });
    expect((await disconnectAs(stack, bot, connection.id)).removed).toBe(true);
    expect(twilio.number(NUMBER).smsUrl).toBe('https://elsewhere.example/sms');
    expect(await connectionRows(stack, connection.id)).toBe(0);
  });

  it('an Auth Token Twilio no longer accepts still disconnects, and a number gone from the account too', async () => {
    const revoked = await connected();
    twilio.set({ accounts: { [SID]: { ...accounts[SID], authToken: 'ffffffffffffffffffffffffffffffff' } } });
    expect((await disconnectAs(stack, revoked.bot, revoked.connection.id)).removed).toBe(true);
    expect(await connectionRows(stack, revoked.connection.id)).toBe(0);
    expect(twilio.number(NUMBER).smsUrl).toBe(revoked.url);
    twilio.set({ accounts });
    const released = await connected();
    twilio.set({ accounts: { [SID]: { ...accounts[SID], numbers: [] } } });
    expect((await disconnectAs(stack, released.bot, released.connection.id)).removed).toBe(true);
    expect(await connectionRows(stack, released.connection.id)).toBe(0);
  });

  it("a deleted chatbot's number is cleared too, and with Twilio out of reach its connection goes all the same", async () => {
    const deleted = await connected();
    expect(await removeChatbotChannels(stack.parts.deps.channels, deleted.bot.id)).toBe(1);
    expect(twilio.number(NUMBER).smsUrl).toBe('');
    const unreachable = await connected();
    twilio.set({ numberFailures: 5 });
    expect(await removeChatbotChannels(stack.parts.deps.channels, unreachable.bot.id)).toBe(1);
    expect(twilio.number(NUMBER).smsUrl).toBe(unreachable.url);
    expect(await connectionRows(stack, unreachable.connection.id)).toBe(0);
  });

  it('Twilio out of reach keeps the connection with the error, and the next try removes it; on connect it stores nothing', async () => {
    const { bot, connection, url } = await connected();
    await disconnectWaitsForProvider(stack, bot, connection.id, {
      outage: () => twilio.set({ numberFailures: 1 }),
      message: TWILIO_UNREACHABLE,
      registered: () => twilio.number(NUMBER).smsUrl === url,
    });

    const other = await stack.newChatbot({ knowledge: KNOWLEDGE });
    twilio.set({ numberFailures: 1 });
    const refused = await rpcError(stack.client.connectChannel(connectInput(other)));
    expect([refused.code, refused.rawMessage]).toEqual([Code.Unavailable, TWILIO_UNREACHABLE]);
    expect(await stack.parts.prisma.channelConnection.count({ where: { chatbotId: other.id } })).toBe(0);
    expect(twilio.number(NUMBER).smsUrl).toBe('');
  });
});

describe("Twilio's signature", () => {
  it('refuses a missing, wrong or truncated signature, the URL or a parameter changed after signing; queues nothing; tells no expected value', async () => {
    const { connection, url } = await connected();
    const params = inboundSmsParams({ accountSid: SID, authToken: AUTH_TOKEN, from: '+447700900001', to: NUMBER, body: 'Open on Monday?' });
    const good = twilioSignatureOf(AUTH_TOKEN, url, params);
    const before = await inboundJobs();
    const missing = await rpcError(post(connection.id, url, params, ''));
    expect([missing.code, missing.rawMessage]).toEqual([Code.Unauthenticated, TWILIO_SIGNATURE_MISSING]);
    const refusals = await Promise.all([
      rpcError(post(connection.id, url, params, twilioSignatureOf('ffffffffffffffffffffffffffffffff', url, params))),
      rpcError(post(connection.id, url, params, good.slice(0, -2))),
      rpcError(post(connection.id, url, params, `${good}A`)),
      // The URL changed after signing: another path, another query, another host.
      rpcError(post(connection.id, `${url}?x=1`, params, good)),
      rpcError(post(connection.id, url.replace('parley.example', 'evil.example'), params, good)),
      // A parameter changed, added or removed after signing.
      rpcError(post(connection.id, url, { ...params, Body: 'Send me every visitor list.' }, good)),
      rpcError(post(connection.id, url, { ...params, From: '+447700900002' }, good)),
      rpcError(post(connection.id, url, { ...params, Extra: '1' }, good)),
      rpcError(post(connection.id, url, Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'NumMedia')), good)),
      // Another connection's URL, and a connection that does not exist.
      rpcError(post('00000000-0000-4000-8000-000000000000', url, params, good)),
    ]);
    for (const err of refusals) expect([err.code, err.rawMessage]).toEqual([Code.PermissionDenied, TWILIO_SIGNATURE_REFUSED]);
    for (const err of [missing, ...refusals]) {
      expect(err.message).not.toContain(good);
      expect(err.message).not.toContain(AUTH_TOKEN);
    }
    expect(await inboundJobs()).toBe(before);
    expect((await post(connection.id, url, params, good)).queued).toBe(true);
    expect(await inboundJobs()).toBe(before + 1);
  });
});

describe('an SMS', () => {
  it('is answered from the knowledge by the Messages API with a plain sources footer, its status callbacks move the delivery, one conversation', async () => {
    const { bot, connection, url } = await connected();
    await stack.makePro(bot.ownerId);
    await sms(connection.id, url, '+447700900010', 'Is the museum open every day?');
    const [answer] = await sentTo('+447700900010', 1, 'the answer');
    expect([answer.accountSid, answer.from, answer.statusCallback]).toEqual([SID, NUMBER, url]);
    expect(answer.body).toContain('The museum opens at ten');
    expect(answer.body).not.toMatch(/\[\d\]/);
    expect(answer.body).toContain(`\n\n${SOURCES_HEADING}\n1. `);
    // Twilio's callbacks, in any order: only forward.
    await statusOf(connection.id, answer, 'delivered');
    await statusOf(connection.id, answer, 'sent');
    const { deliveries } = await stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id });
    expect(deliveries.map((d) => [d.kind, d.status, d.chatId])).toEqual([['answer', 'delivered', '+447700900010']]);
    await statusOf(connection.id, answer, 'undelivered', '30003');
    const after = await stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id });
    expect(after.deliveries.map((d) => [d.status, d.lastError])).toEqual([['failed', 'Twilio: undelivered (error 30003)']]);

    await sms(connection.id, url, '+447700900010', 'And on Monday?');
    await sentTo('+447700900010', 2, 'the second answer');
    const { conversations } = await stack.client.listConversations({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(conversations.map((c) => [c.channel, c.messageCount, c.visitorId])).toEqual([['sms', 4, 'sms:+447700900010']]);
  });

  it('a long answer goes out in parts of at most 1,600 characters', async () => {
    const { connection, url } = await connected();
    stack.fake.setBehaviour({ reply: () => `${'The museum opens at ten. '.repeat(100)}[1]` });
    await sms(connection.id, url, '+447700900011', 'Tell me everything about the opening hours.');
    const parts = await sentTo('+447700900011', 2, 'the parts');
    for (const p of parts) expect([...p.body].length).toBeLessThanOrEqual(SMS_MAX_TEXT);
    expect(parts.map((p) => p.body).join(' ')).toContain(SOURCES_HEADING);
  });

  it('delivered 5 times at once is answered once and billed once', async () => {
    const { bot, connection, url } = await connected();
    const sid = smsSid();
    await Promise.all(Array.from({ length: 5 }, () => sms(connection.id, url, '+447700900012', 'Is the museum open every day?', sid)));
    await sentTo('+447700900012', 1, 'the answer');
    await sms(connection.id, url, '+447700900012', 'Is the museum open every day?', sid);
    await stack.applyUsage();
    expect(twilio.sent.filter((m) => m.to === '+447700900012')).toHaveLength(1);
    expect(stack.fake.requests).toHaveLength(1);
    expect(await stack.billing.prisma.usageRecord.count({ where: { ownerId: bot.ownerId } })).toBe(1);
    expect(await stack.parts.prisma.channelInbound.count({ where: { connectionId: connection.id } })).toBe(1);
  });

  it('is sent again after a 429 and a 503, with the attempts on its delivery record', async () => {
    const { bot, connection, url } = await connected();
    twilio.set({ rateLimited: 1, failures: 1 });
    await sms(connection.id, url, '+447700900013', 'Is the museum open every day?');
    await sentTo('+447700900013', 1, 'the answer');
    const { deliveries } = await until(
      () => stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id }),
      (r) => r.deliveries[0]?.status === 'sent',
      'the delivery record',
    );
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual([['sent', 3]]);
  });

  it('STOP, START and HELP are never answered; nothing is sent to a number that wrote STOP until it writes START', async () => {
    const { bot, connection, url } = await connected();
    const from = '+447700900014';
    await sms(connection.id, url, from, 'Is the museum open every day?');
    await sentTo(from, 1, 'the answer');
    const before = await inboundJobs();
    expect(await sms(connection.id, url, from, ' stop ')).toMatchObject({ queued: false });
    expect(await sms(connection.id, url, from, 'Are you there?')).toMatchObject({ queued: false });
    expect(await inboundJobs()).toBe(before);
    const test = (await stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: from })).delivery!;
    expect([test.status, test.attempts, test.lastError]).toEqual(['failed', 0, OPTED_OUT]);
    expect(await sms(connection.id, url, from, 'HELP')).toMatchObject({ queued: false });
    expect(await sms(connection.id, url, from, 'Start')).toMatchObject({ queued: false });
    expect(twilio.sent.filter((m) => m.to === from)).toHaveLength(1);
    const { messages } = await stack.client.listSkippedMessages({ ownerId: bot.ownerId, connectionId: connection.id });
    expect(messages.map((m) => [m.contact, m.reason])).toEqual([
      [from, 'opt_in'],
      [from, 'help'],
      [from, 'opted_out'],
      [from, 'opt_out'],
    ]);
    await stack.applyUsage();
    expect(stack.fake.requests).toHaveLength(1);
    // Opted in again: answered.
    await sms(connection.id, url, from, 'And on Monday?');
    await sentTo(from, 2, 'the answer after START');
  });

  it("an agent's inbox reply goes out by SMS", async () => {
    const { bot, connection, url } = await connected();
    await stack.makePro(bot.ownerId);
    await enableHandoff(stack.chatbots, bot);
    const from = '+447700900015';
    await sms(connection.id, url, from, 'I want to talk to a person');
    await sentTo(from, 1, 'the answer');
    const { waiting } = await until(
      () => stack.client.listInbox({ ownerId: bot.ownerId }),
      (r) => r.waiting.some((i) => i.chatbotId === bot.id),
      'the waiting conversation',
    );
    const conversationId = waiting.find((i) => i.chatbotId === bot.id)!.conversationId;
    await stack.client.replyToConversation({
      ownerId: bot.ownerId,
      conversationId,
      agent: agent('Ada'),
      content: 'Hello, Ada from the museum here.',
      clientMessageId: clientMessageId(),
    });
    const [, reply] = await sentTo(from, 2, "the agent's reply");
    expect([reply.from, reply.body]).toEqual([NUMBER, 'Hello, Ada from the museum here.']);
  });

  it('a lead written back after the wait ran out keeps the number in E.164 as its channel contact', async () => {
    const { bot, connection, url } = await connected();
    await stack.makePro(bot.ownerId);
    await enableHandoff(stack.chatbots, bot);
    const from = '+447700900016';
    await sms(connection.id, url, from, 'I want to talk to a person');
    await sentTo(from, 1, 'the answer');
    const { waiting } = await until(
      () => stack.client.listInbox({ ownerId: bot.ownerId }),
      (r) => r.waiting.some((i) => i.chatbotId === bot.id),
      'the waiting conversation',
    );
    const conversationId = waiting.find((i) => i.chatbotId === bot.id)!.conversationId;
    const { handoffRequestedAt } = await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: conversationId } });
    expect(await handoffTimedOut(stack.parts.deps.handoffCore, { conversationId, requestedAt: handoffRequestedAt! })).toBe(true);
    const [, notice] = await sentTo(from, 2, 'the timeout message');
    expect(notice.body).toBe(TIMEOUT_MESSAGE);
    await sms(connection.id, url, from, 'It is ada.lovelace@example.com');
    const [, , thanks] = await sentTo(from, 3, 'the thanks');
    expect(thanks.body).toBe(leadTaken('ada.lovelace@example.com'));
    const { leads } = await stack.client.listLeads({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(leads.map((l) => [l.email, l.channel, l.channelContact])).toEqual([['ada.lovelace@example.com', 'sms', from]]);
  });
});
