// Slack (docs/adr/0057-slack-channel.md): connecting checks the bot token with auth.test and seals
// it with the app's signing secret; Events API requests are verified by their v0 signature over the
// timestamp and raw body (old timestamps refused, fail closed); a direct message or a mention is
// queued once by its event_id, answered through the widget's turn and sent with chat.postMessage in
// its thread, retried after a 429's Retry-After and a 5xx; one thread is one conversation; an
// agent's inbox reply goes out in the thread. Real chatbot and billing services, PostgreSQL, Redis
// and BullMQ, the fake Slack Web API over HTTP.
import { Queue } from 'bullmq';
import { Code } from '@connectrpc/connect';
import { QUEUES } from '@parley/common/queues.ts';
import { signSlack, slackEvent, startFakeSlack, type FakeSlack } from '@parley/common/testing/fake-slack.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIGNATURE_MISSING, SIGNATURE_REFUSED } from '../../src/channels/receive-update.ts';
import {
  openSigningSecret,
  SLACK_SECRET_SHAPE_INVALID,
  SLACK_TEST_MESSAGE,
  SLACK_TOKEN_REFUSED,
  SLACK_TOKEN_SHAPE_INVALID,
} from '../../src/channels/connections.ts';
import { WAITING_FOR_PERSON } from '../../src/channels/answer-update.ts';
import { agent, clientMessageId, enableHandoff } from './handoff-helpers.ts';
import { rpcError, startChatStack, type ChatStack } from './harness.ts';

const TOKEN = 'xoxb-1234567890-0987654321-FakeSlackTokenForTestsWXYZ';
const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const KNOWLEDGE = ['The museum opens at ten and closes at six, every day but Monday.'];

let stack: ChatStack;
let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack({ bots: { [TOKEN]: 'museum_bot' } });
  stack = await startChatStack({ SLACK_API_BASE: slack.url, CHANNEL_SEND_ATTEMPTS: '4' });
});
afterAll(async () => {
  await stack?.stop();
  await slack?.close();
});
beforeEach(() => {
  slack.sent.length = 0;
  slack.calls.length = 0;
  slack.set({ bots: { [TOKEN]: 'museum_bot' }, rateLimited: { times: 0, retryAfter: 1 }, failures: 0 });
  stack.fake.reset();
});

const text = (message: unknown) => JSON.stringify(message, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
const now = () => String(Math.floor(Date.now() / 1000));

async function connectedBot(credit = '5') {
  const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
  await stack.setCredit(bot.ownerId, credit);
  const { connection } = await stack.client.connectChannel({
    ownerId: bot.ownerId,
    chatbotId: bot.id,
    uniqueId: bot.uniqueId,
    channel: 'slack',
    token: TOKEN,
    signingSecret: SIGNING_SECRET,
    webhookBaseUrl: '',
  });
  return { bot, connection: connection! };
}

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

/** Posts the payload as Slack does: signed now under the signing secret, unless told otherwise. */
const post = (connectionId: string, payload: unknown, o: { timestamp?: string; signature?: string; body?: string } = {}) => {
  const body = JSON.stringify(payload);
  const timestamp = o.timestamp ?? now();
  return stack.client.receiveChannelUpdate({
    channel: 'slack',
    connectionId,
    secret: o.signature ?? signSlack(SIGNING_SECRET, timestamp, body),
    timestamp,
    body: Buffer.from(o.body ?? body),
  });
};

describe('connecting Slack', () => {
  it('checks the token with auth.test, seals the token and the signing secret, and never answers either', async () => {
    const { bot, connection } = await connectedBot();
    expect(slack.calls.map((c) => c.method)).toEqual(['auth.test']);
    expect([connection.channel, connection.status, connection.tokenLastFour, connection.botName]).toEqual([
      'slack',
      'connected',
      'WXYZ',
      'museum_bot (Parley Test)',
    ]);
    const listed = await stack.client.listChannelConnections({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(text(listed)).not.toContain(TOKEN);
    expect(text(listed)).not.toContain(SIGNING_SECRET);
    const row = await stack.parts.prisma.channelConnection.findUniqueOrThrow({ where: { id: connection.id } });
    expect(row.tokenCiphertext).not.toContain(TOKEN.slice(10));
    expect(row.signingSecretCiphertext).not.toContain(SIGNING_SECRET);
    expect(openSigningSecret(stack.parts.deps.channels.ciphers, row.id, row.signingSecretCiphertext!)).toBe(SIGNING_SECRET);
    // The workspace the token is for, as auth.test names it: another workspace's events are left.
    expect(row.accountId).toBe('T0PARLEY');
  });

  it('stores nothing for a token Slack refuses, and calls no one for a malformed token or signing secret', async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    const connect = (token: string, signingSecret: string) =>
      stack.client.connectChannel({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        uniqueId: bot.uniqueId,
        channel: 'slack',
        token,
        signingSecret,
        webhookBaseUrl: '',
      });
    const refused = await rpcError(connect('xoxb-1111111111-revoked-revoked-revoked', SIGNING_SECRET));
    expect([refused.code, refused.rawMessage]).toEqual([Code.FailedPrecondition, SLACK_TOKEN_REFUSED]);
    const malformed = await rpcError(connect('https://evil.example/#', SIGNING_SECRET));
    expect([malformed.code, malformed.rawMessage]).toEqual([Code.InvalidArgument, SLACK_TOKEN_SHAPE_INVALID]);
    const noSecret = await rpcError(connect(TOKEN, ''));
    expect([noSecret.code, noSecret.rawMessage]).toEqual([Code.InvalidArgument, SLACK_SECRET_SHAPE_INVALID]);
    expect(slack.calls.map((c) => c.method)).toEqual(['auth.test']);
    expect(await stack.parts.prisma.channelConnection.count({ where: { chatbotId: bot.id } })).toBe(0);
  });
});

describe("the Events API's verification", () => {
  it("answers Slack's url_verification challenge once signed, and refuses it unsigned", async () => {
    const { connection } = await connectedBot();
    const challenge = { token: 'x', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' };
    expect((await post(connection.id, challenge)).challenge).toBe(challenge.challenge);
    const unsigned = await rpcError(post(connection.id, challenge, { signature: '' }));
    expect(unsigned.code).toBe(Code.Unauthenticated);
  });

  it('refuses a missing, wrong, truncated or replayed signature and a body changed after signing, and queues nothing', async () => {
    const { connection } = await connectedBot();
    const before = await inboundJobs();
    const event = slackEvent({ channel: 'D0ADA', text: 'Is the museum open on Monday?' });
    const body = JSON.stringify(event);
    const ts = now();
    const good = signSlack(SIGNING_SECRET, ts, body);
    const old = String(Number(ts) - 6 * 60);
    const missing = await rpcError(post(connection.id, event, { signature: '' }));
    const noTimestamp = await rpcError(
      stack.client.receiveChannelUpdate({
        channel: 'slack',
        connectionId: connection.id,
        secret: good,
        timestamp: '',
        body: Buffer.from(body),
      }),
    );
    for (const err of [missing, noTimestamp]) expect([err.code, err.rawMessage]).toEqual([Code.Unauthenticated, SIGNATURE_MISSING]);
    const refusals = await Promise.all([
      rpcError(post(connection.id, event, { timestamp: ts, signature: signSlack('another-apps-secret-0000', ts, body) })),
      rpcError(post(connection.id, event, { timestamp: ts, signature: good.slice(0, -1) })),
      rpcError(post(connection.id, event, { timestamp: ts, signature: `${good}0` })),
      rpcError(post(connection.id, event, { timestamp: old, signature: signSlack(SIGNING_SECRET, old, body) })),
      rpcError(post(connection.id, event, { timestamp: ts, signature: good, body: body.replace('Monday', 'Sunday') })),
      rpcError(post('00000000-0000-4000-8000-000000000000', event)),
    ]);
    for (const err of refusals) expect([err.code, err.rawMessage]).toEqual([Code.PermissionDenied, SIGNATURE_REFUSED]);
    for (const err of [missing, noTimestamp, ...refusals]) {
      expect(err.message).not.toContain(good.slice(3));
      expect(err.message).not.toContain(SIGNING_SECRET);
    }
    expect(await inboundJobs()).toBe(before);
    expect(slack.sent).toEqual([]);
  });

  it("takes the bot's own posts, other bots', edits, other channels' messages and other workspaces' events without queueing them", async () => {
    const { connection } = await connectedBot();
    const before = await inboundJobs();
    const ignored = [
      slackEvent({ channel: 'D0ADA', text: 'my own answer', user: 'U0BOT' }),
      slackEvent({ channel: 'D0ADA', text: 'another bot', extra: { bot_id: 'B0OTHER' } }),
      slackEvent({ channel: 'D0ADA', text: 'edited', extra: { subtype: 'message_changed' } }),
      slackEvent({ channel: 'C0GENERAL', text: 'chatter', extra: { channel_type: 'channel' } }),
      // Another workspace's, signed alike (one app's secret signs every workspace's events).
      { ...slackEvent({ channel: 'D0ADA', text: 'from elsewhere' }), team_id: 'T0ANOTHER' },
    ];
    for (const e of ignored) expect((await post(connection.id, e)).queued).toBe(false);
    expect(await inboundJobs()).toBe(before);
  });
});

describe('a Slack message', () => {
  it('a direct message is answered in the DM channel, a mention in its thread, each thread one conversation', async () => {
    const { bot, connection } = await connectedBot();
    await stack.makePro(bot.ownerId);
    expect((await post(connection.id, slackEvent({ channel: 'D0ADA', text: 'Is the museum open every day?' }))).queued).toBe(true);
    const [dm] = await until(
      () => slack.sent,
      (s) => s.length === 1,
      'the answer to the direct message',
    );
    expect([dm.channel, dm.thread_ts, dm.token]).toEqual(['D0ADA', undefined, TOKEN]);
    expect(dm.text).toContain('The museum opens at ten');
    expect(dm.text).not.toMatch(/\[\d\]/);
    expect(dm.text).toContain('\n\nSources:\n1. ');

    const mention = slackEvent({ channel: 'C0HELP', text: 'When does the museum close?', type: 'mention', ts: '1764680000.000100' });
    await post(connection.id, mention);
    const [, inThread] = await until(
      () => slack.sent,
      (s) => s.length === 2,
      'the answer to the mention',
    );
    expect([inThread.channel, inThread.thread_ts]).toEqual(['C0HELP', '1764680000.000100']);
    // A follow-up in the thread continues its conversation.
    await post(connection.id, slackEvent({ channel: 'C0HELP', text: 'And on Monday?', type: 'mention', threadTs: '1764680000.000100' }));
    await until(
      () => slack.sent,
      (s) => s.length === 3,
      'the answer in the thread',
    );
    expect(slack.sent[2].thread_ts).toBe('1764680000.000100');
    expect(text(stack.fake.requests.at(-1)!.messages)).toContain('When does the museum close?');
    expect(text(stack.fake.requests.at(-1)!.messages)).not.toContain('Is the museum open every day?');
    const { conversations } = await stack.client.listConversations({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(conversations.map((c) => [c.channel, c.messageCount, c.visitorId]).sort()).toEqual([
      ['slack', 2, 'slack:D0ADA'],
      ['slack', 4, 'slack:C0HELP:1764680000.000100'],
    ]);
    const { deliveries } = await stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id });
    expect(deliveries.map((d) => [d.kind, d.status])).toEqual([
      ['answer', 'sent'],
      ['answer', 'sent'],
      ['answer', 'sent'],
    ]);
  });

  it('delivered 5 times at once (Slack retrying) is answered once and billed once', async () => {
    const { bot, connection } = await connectedBot();
    const event = slackEvent({ channel: 'D0BOB', text: 'Is the museum open every day?' });
    await Promise.all(Array.from({ length: 5 }, () => post(connection.id, event)));
    await until(
      () => slack.sent,
      (s) => s.length >= 1,
      'the answer',
    );
    await post(connection.id, event);
    await stack.applyUsage();
    expect(slack.sent.filter((s) => s.channel === 'D0BOB')).toHaveLength(1);
    expect(stack.fake.requests).toHaveLength(1);
    const records = await stack.billing.prisma.usageRecord.findMany({ where: { ownerId: bot.ownerId } });
    expect(records).toHaveLength(1);
    expect(await stack.parts.prisma.channelInbound.count({ where: { connectionId: connection.id } })).toBe(1);
  });

  it("is sent again after Slack's 429 Retry-After and a 503, with the attempts on its delivery record", async () => {
    const { bot, connection } = await connectedBot();
    slack.set({ rateLimited: { times: 1, retryAfter: 1 }, failures: 1 });
    await post(connection.id, slackEvent({ channel: 'D0CAT', text: 'Is the museum open every day?' }));
    await until(
      () => slack.sent,
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

  it('marks the connection failing when Slack revokes the token; a test message to a channel clears it', async () => {
    const { bot, connection } = await connectedBot();
    slack.set({ bots: {} });
    await post(connection.id, slackEvent({ channel: 'D0DAN', text: 'Is the museum open every day?' }));
    const { connections } = await until(
      () => stack.client.listChannelConnections({ ownerId: bot.ownerId, chatbotId: bot.id }),
      (r) => r.connections[0]?.status === 'failing',
      'the failing state',
    );
    expect(connections[0].lastError).toBe('401 invalid_auth');
    slack.set({ bots: { [TOKEN]: 'museum_bot' } });
    const { delivery } = await stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: '' });
    expect([delivery?.status, delivery?.chatId]).toEqual(['sent', 'D0DAN']);
    expect(slack.sent.at(-1)).toMatchObject({ channel: 'D0DAN', text: SLACK_TEST_MESSAGE });
    const bad = await rpcError(
      stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: 'https://x' }),
    );
    expect(bad.code).toBe(Code.InvalidArgument);
    expect((await stack.client.disconnectChannel({ ownerId: bot.ownerId, connectionId: connection.id })).removed).toBe(true);
    const gone = await rpcError(post(connection.id, slackEvent({ channel: 'D0DAN', text: 'still there?' })));
    expect(gone.code).toBe(Code.PermissionDenied);
  });
});

describe('handoff across Slack', () => {
  it("an agent's inbox reply goes out in the Slack thread the conversation came from", async () => {
    const { bot, connection } = await connectedBot();
    await stack.makePro(bot.ownerId);
    await enableHandoff(stack.chatbots, bot);
    const ts = '1764690000.000200';
    await post(
      connection.id,
      slackEvent({ channel: 'C0DESK', type: 'mention', ts, text: 'Is the museum open every day? I want to talk to a person' }),
    );
    const [first] = await until(
      () => slack.sent,
      (s) => s.length === 1,
      'the answer',
    );
    expect(first.text.endsWith(WAITING_FOR_PERSON)).toBe(true);
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
    await until(
      () => slack.sent,
      (s) => s.length === 2,
      "the agent's reply",
    );
    expect(slack.sent[1]).toMatchObject({ channel: 'C0DESK', thread_ts: ts, text: 'Hello, Ada from the museum here.' });
  });
});
