// WhatsApp Cloud API, Messenger and Instagram (docs/adr/0056-meta-channels.md): connecting reads the
// account with the owner's token and keeps token and app secret sealed; the GET handshake answers
// only Parley's verify token; every POST must be signed X-Hub-Signature-256 over the raw body under
// the app secret (fail closed, nothing queued, no expected value told); a text message is queued
// once by its message id, answered through the widget's turn and sent with the Graph API; status
// callbacks move the delivery forward; outside WhatsApp's 24-hour window nothing is sent. Real
// chatbot and billing services, PostgreSQL, Redis and BullMQ, the fake Graph API over HTTP.
import { Queue } from 'bullmq';
import { Code } from '@connectrpc/connect';
import { QUEUES } from '@parley/common/queues.ts';
import {
  messagingTextEvent,
  metaSignature,
  startFakeMeta,
  whatsappStatusEvent,
  whatsappTextEvent,
  type FakeMeta,
} from '@parley/common/testing/fake-meta.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIGNATURE_MISSING, SIGNATURE_REFUSED, VERIFY_TOKEN_REFUSED } from '../../src/channels/meta-receive.ts';
import { WINDOW_CLOSED } from '../../src/channels/meta-channels.ts';
import { META_UNREACHABLE, metaTokenRefused } from '../../src/channels/meta-connections.ts';
import { handoffTimedOut, TIMEOUT_MESSAGE } from '../../src/handoff/handoff-timeout.ts';
import { contactOf, leadTaken } from '../../src/leads/channel-lead.ts';
import { agent, clientMessageId, enableHandoff } from './handoff-helpers.ts';
import { connectionRows, disconnectAs, disconnectWaitsForProvider, rpcError, startChatStack, type ChatStack } from './harness.ts';

const PHONE_ID = '106540352242922';
const WABA_ID = '102290129340398';
const PAGE_ID = '201234567890123';
const IG_ID = '17841400000000001';
const TOKEN = 'EAAGfakeSystemUserTokenForParleyTests0123WXYZ';
const PAGE_TOKEN = 'EAAGfakePageTokenForParleyTests0123456789PAGE';
const IG_TOKEN = 'EAAGfakeInstagramTokenForParleyTests012345IGIG';
const APP_SECRET = '0123456789abcdef0123456789abcdef';
const KNOWLEDGE = ['The museum opens at ten and closes at six, every day but Monday.'];
const WEBHOOK_BASE = 'https://parley.example/api/channels/whatsapp';

let stack: ChatStack;
let meta: FakeMeta;
const accounts = {
  [PHONE_ID]: { token: TOKEN, name: '+1 555-078-3881', businessAccountId: WABA_ID },
  [PAGE_ID]: { token: PAGE_TOKEN, name: 'City Museum' },
  [IG_ID]: { token: IG_TOKEN, name: 'citymuseum' },
};
beforeAll(async () => {
  meta = await startFakeMeta({ accounts });
  stack = await startChatStack({ META_GRAPH_API_BASE: meta.url, CHANNEL_SEND_ATTEMPTS: '4' });
});
afterAll(async () => {
  await stack?.stop();
  await meta?.close();
});
beforeEach(() => {
  meta.sent.length = 0;
  meta.calls.length = 0;
  meta.set({ accounts, rateLimited: 0, failures: 0, subscriptionFailures: 0 });
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

/** Connects the chatbot to one of Meta's channels with the fake's account and token for it. */
const connectTo = (bot: { ownerId: string; id: string; uniqueId: string }, channel: string) => {
  const ids = { whatsapp: [PHONE_ID, TOKEN], messenger: [PAGE_ID, PAGE_TOKEN], instagram: [IG_ID, IG_TOKEN] }[channel]!;
  return stack.client.connectChannel({
    ownerId: bot.ownerId,
    chatbotId: bot.id,
    uniqueId: bot.uniqueId,
    channel,
    token: ids[1],
    appSecret: APP_SECRET,
    accountId: ids[0],
    businessAccountId: channel === 'whatsapp' ? WABA_ID : '',
    webhookBaseUrl: WEBHOOK_BASE,
  });
};

async function connected(channel = 'whatsapp', credit = '5') {
  const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
  await stack.setCredit(bot.ownerId, credit);
  const { connection } = await connectTo(bot, channel);
  return { bot, connection: connection! };
}

const signedPost = (channel: string, connectionId: string, event: unknown, sign = (body: string) => metaSignature(APP_SECRET, body)) => {
  const body = JSON.stringify(event);
  return stack.client.receiveChannelUpdate({ channel, connectionId, secret: sign(body), body: Buffer.from(body) });
};

describe('connecting WhatsApp', () => {
  it('reads the account with the token, seals token and app secret, and answers the verify token once', async () => {
    const { bot, connection } = await connected();
    expect(meta.calls).toEqual([
      { method: 'GET', path: `/${PHONE_ID}` },
      { method: 'POST', path: `/${WABA_ID}/subscribed_apps` },
    ]);
    expect([connection.status, connection.tokenLastFour, connection.botName, connection.accountId]).toEqual([
      'connected',
      'WXYZ',
      '+1 555-078-3881',
      PHONE_ID,
    ]);
    expect(connection.verifyToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const listed = await stack.client.listChannelConnections({ ownerId: bot.ownerId, chatbotId: bot.id });
    for (const secret of [TOKEN, APP_SECRET, connection.verifyToken]) expect(text(listed)).not.toContain(secret);
    expect(listed.connections[0].verifyToken).toBe('');
    const row = await stack.parts.prisma.channelConnection.findUniqueOrThrow({ where: { id: connection.id } });
    expect(text(row)).not.toContain(APP_SECRET);
    expect(text(row)).not.toContain(TOKEN.slice(8));
  });

  it('stores nothing for a token Meta refuses, and calls no one for malformed ids, token or secret', async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    const connect = (patch: Record<string, string>) =>
      stack.client.connectChannel({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        uniqueId: bot.uniqueId,
        channel: 'whatsapp',
        token: TOKEN,
        appSecret: APP_SECRET,
        accountId: PHONE_ID,
        businessAccountId: WABA_ID,
        webhookBaseUrl: WEBHOOK_BASE,
        ...patch,
      });
    const refused = await rpcError(connect({ token: 'EAAGrevokedTokenRevokedTokenRevoked00' }));
    expect([refused.code, refused.rawMessage]).toEqual([Code.FailedPrecondition, metaTokenRefused('WhatsApp')]);
    meta.calls.length = 0;
    const malformed: Record<string, string>[] = [
      { accountId: '../me' },
      { businessAccountId: '' },
      { token: 'x y' },
      { appSecret: 'short' },
    ];
    for (const patch of malformed) {
      expect((await rpcError(connect(patch))).code).toBe(Code.InvalidArgument);
    }
    expect(meta.calls).toEqual([]);
    expect(await stack.parts.prisma.channelConnection.count({ where: { chatbotId: bot.id } })).toBe(0);
  });
});

describe("the app's subscription at Meta (docs/adr/0076-registrations-at-the-provider.md)", () => {
  // Each account starts with no connection of an earlier test, so its subscription is this test's alone.
  beforeEach(() => stack.parts.prisma.channelConnection.deleteMany({ where: { channel: { in: ['whatsapp', 'messenger', 'instagram'] } } }));
  const subscribed = [
    ['whatsapp', WABA_ID, []],
    ['messenger', PAGE_ID, ['messages', 'messaging_postbacks']],
    ['instagram', IG_ID, ['messages', 'messaging_postbacks']],
  ] as const;

  it('subscribes the WhatsApp Business account, the page and the Instagram account on connect, and removes each on disconnect', async () => {
    for (const [channel, id, fields] of subscribed) {
      const { bot, connection } = await connected(channel);
      expect(meta.subscriptions.get(id)).toEqual(fields);
      expect((await disconnectAs(stack, bot, connection.id)).removed).toBe(true);
      expect(meta.subscriptions.has(id)).toBe(false);
      expect(await connectionRows(stack, connection.id)).toBe(0);
    }
    expect(meta.calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual(
      subscribed.map(([, id]) => `/${id}/subscribed_apps`),
    );
  });

  it('keeps the subscription while another connection answers through the same account, and removes it with the last', async () => {
    const first = await connected('messenger');
    const second = await connected('messenger');
    expect((await disconnectAs(stack, first.bot, first.connection.id)).removed).toBe(true);
    expect(meta.subscriptions.get(PAGE_ID)).toEqual(['messages', 'messaging_postbacks']);
    expect(meta.calls.filter((c) => c.method === 'DELETE')).toEqual([]);
    expect((await disconnectAs(stack, second.bot, second.connection.id)).removed).toBe(true);
    expect(meta.subscriptions.has(PAGE_ID)).toBe(false);
  });

  it('a token Meta no longer accepts (401, code 190) still disconnects', async () => {
    const { bot, connection } = await connected('messenger');
    meta.set({ accounts: { ...accounts, [PAGE_ID]: { token: 'EAAGrevokedTokenRevokedTokenRevoked00', name: 'City Museum' } } });
    expect((await disconnectAs(stack, bot, connection.id)).removed).toBe(true);
    expect(await connectionRows(stack, connection.id)).toBe(0);
  });

  it('Meta out of reach keeps the connection with the error, and the next try removes it; on connect it stores nothing', async () => {
    const { bot, connection } = await connected('whatsapp');
    await disconnectWaitsForProvider(stack, bot, connection.id, {
      outage: () => meta.set({ subscriptionFailures: 1 }),
      message: META_UNREACHABLE,
      registered: () => meta.subscriptions.has(WABA_ID),
    });

    const other = await stack.newChatbot({ knowledge: KNOWLEDGE });
    meta.set({ subscriptionFailures: 1 });
    const refused = await rpcError(connectTo(other, 'instagram'));
    expect([refused.code, refused.rawMessage]).toEqual([Code.Unavailable, META_UNREACHABLE]);
    expect(await stack.parts.prisma.channelConnection.count({ where: { chatbotId: other.id } })).toBe(0);
    expect(meta.subscriptions.has(IG_ID)).toBe(false);
  });
});

describe("the webhook's verification", () => {
  it('answers the GET handshake only for subscribe and the verify token', async () => {
    const { connection } = await connected();
    const verify = (mode: string, verifyToken: string, connectionId = connection.id) =>
      stack.client.verifyChannelWebhook({ channel: 'whatsapp', connectionId, mode, verifyToken });
    await expect(verify('subscribe', connection.verifyToken)).resolves.toBeDefined();
    const refusals = await Promise.all([
      rpcError(verify('subscribe', 'not-the-token')),
      rpcError(verify('subscribe', connection.verifyToken.slice(0, -1))),
      rpcError(verify('unsubscribe', connection.verifyToken)),
      rpcError(verify('subscribe', '')),
      rpcError(verify('subscribe', connection.verifyToken, '00000000-0000-4000-8000-000000000000')),
      rpcError(
        stack.client.verifyChannelWebhook({
          channel: 'messenger',
          connectionId: connection.id,
          mode: 'subscribe',
          verifyToken: connection.verifyToken,
        }),
      ),
    ]);
    for (const err of refusals) {
      expect([err.code, err.rawMessage]).toEqual([Code.PermissionDenied, VERIFY_TOKEN_REFUSED]);
      expect(err.message).not.toContain(connection.verifyToken);
    }
  });

  it('refuses a missing, wrong or truncated signature and a body changed after signing; queues nothing; never tells the expected signature', async () => {
    const { connection } = await connected();
    const before = await inboundJobs();
    const event = whatsappTextEvent(PHONE_ID, '15551234567', 'Is the museum open on Monday?');
    const body = JSON.stringify(event);
    const good = metaSignature(APP_SECRET, body);
    const post = (secret: string, raw = body, connectionId = connection.id) =>
      rpcError(stack.client.receiveChannelUpdate({ channel: 'whatsapp', connectionId, secret, body: Buffer.from(raw) }));
    const missing = await post('');
    expect([missing.code, missing.rawMessage]).toEqual([Code.Unauthenticated, SIGNATURE_MISSING]);
    const refusals = await Promise.all([
      post(metaSignature('ffffffffffffffffffffffffffffffff', body)),
      post(good.slice(0, -1)),
      post(good.slice(0, 20)),
      post(good.replace('sha256=', 'sha1=')),
      post(good.slice('sha256='.length)),
      post(good, body.replace('Monday', 'Sunday')),
      post(good, `${body} `),
      post(good, body, '00000000-0000-4000-8000-000000000000'),
    ]);
    for (const err of refusals) expect([err.code, err.rawMessage]).toEqual([Code.PermissionDenied, SIGNATURE_REFUSED]);
    for (const err of [missing, ...refusals]) expect(err.message).not.toContain(good.slice(7, 27));
    expect(await inboundJobs()).toBe(before);
    expect(meta.sent).toEqual([]);
  });
});

describe('a WhatsApp message', () => {
  it('is answered from the knowledge through the Graph API, the status callbacks move its delivery, as one conversation shown with its channel', async () => {
    const { bot, connection } = await connected();
    await stack.makePro(bot.ownerId);
    expect(
      (await signedPost('whatsapp', connection.id, whatsappTextEvent(PHONE_ID, '15551230001', 'Is the museum open every day?'))).queued,
    ).toBe(true);
    const [answer] = await until(
      () => meta.sent,
      (s) => s.length === 1,
      'the answer',
    );
    expect([answer.accountId, answer.to]).toEqual([PHONE_ID, '15551230001']);
    expect(answer.text).toContain('The museum opens at ten');
    expect(answer.text).toContain('\n\nSources:\n1. ');
    const deliveryOf = async () =>
      (await stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id })).deliveries[0];
    await until(deliveryOf, (d) => d?.status === 'sent', 'the delivery');
    await signedPost('whatsapp', connection.id, whatsappStatusEvent(PHONE_ID, answer.messageId, 'read', '15551230001'));
    // Out of order: a late "delivered" does not move a read message back.
    await signedPost('whatsapp', connection.id, whatsappStatusEvent(PHONE_ID, answer.messageId, 'delivered', '15551230001'));
    expect((await deliveryOf())!.status).toBe('read');
    const { conversations } = await stack.client.listConversations({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(conversations.map((c) => c.channel)).toEqual(['whatsapp']);
  });

  it('delivered 5 times at once is answered once and billed once', async () => {
    const { bot, connection } = await connected();
    const event = whatsappTextEvent(PHONE_ID, '15551230002', 'Is the museum open every day?', { id: 'wamid.FIVE' });
    await Promise.all(Array.from({ length: 5 }, () => signedPost('whatsapp', connection.id, event)));
    await until(
      () => meta.sent,
      (s) => s.length >= 1,
      'the answer',
    );
    await signedPost('whatsapp', connection.id, event);
    await stack.applyUsage();
    expect(meta.sent.filter((s) => s.to === '15551230002')).toHaveLength(1);
    expect(stack.fake.requests).toHaveLength(1);
    expect(await stack.billing.prisma.usageRecord.count({ where: { ownerId: bot.ownerId } })).toBe(1);
    expect(await stack.parts.prisma.channelInbound.count({ where: { connectionId: connection.id } })).toBe(1);
  });

  it('is sent again after a 429 and a 503, with the attempts on its delivery record', async () => {
    const { bot, connection } = await connected();
    meta.set({ rateLimited: 1, failures: 1 });
    await signedPost('whatsapp', connection.id, whatsappTextEvent(PHONE_ID, '15551230003', 'Is the museum open every day?'));
    await until(
      () => meta.sent,
      (s) => s.length === 1,
      'the answer',
    );
    const { deliveries } = await until(
      () => stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id }),
      (r) => r.deliveries[0]?.status === 'sent',
      'the delivery record',
    );
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual([['sent', 3]]);
  });

  it('outside the 24-hour window sends nothing and tells the owner a template would be needed', async () => {
    const { bot, connection } = await connected();
    await signedPost('whatsapp', connection.id, whatsappTextEvent(PHONE_ID, '15551230004', 'Is the museum open every day?'));
    await until(
      () => meta.sent,
      (s) => s.length === 1,
      'the answer',
    );
    await stack.parts.prisma.channelThread.updateMany({
      where: { connectionId: connection.id },
      data: { lastInboundAt: new Date(Date.now() - 25 * 3_600_000) },
    });
    const delivery = (await stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: '' }))
      .delivery!;
    expect([delivery.status, delivery.attempts, delivery.lastError]).toEqual(['failed', 0, WINDOW_CLOSED]);
    expect(meta.sent).toHaveLength(1);
    // The user writes again: the window is open again.
    await signedPost('whatsapp', connection.id, whatsappTextEvent(PHONE_ID, '15551230004', 'And on Monday?'));
    await until(
      () => meta.sent,
      (s) => s.length === 2,
      'the second answer',
    );
    const again = (await stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: '' })).delivery!;
    expect(again.status).toBe('sent');
  });

  it('an agent answers from the inbox on WhatsApp', async () => {
    const { bot, connection } = await connected();
    await stack.makePro(bot.ownerId);
    await enableHandoff(stack.chatbots, bot);
    await signedPost(
      'whatsapp',
      connection.id,
      whatsappTextEvent(PHONE_ID, '15551230005', 'Is the museum open every day? I want to talk to a person'),
    );
    await until(
      () => meta.sent,
      (s) => s.length === 1,
      'the answer',
    );
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
      () => meta.sent,
      (s) => s.length === 2,
      "the agent's reply",
    );
    expect(meta.sent[1]).toMatchObject({ accountId: PHONE_ID, to: '15551230005', text: 'Hello, Ada from the museum here.' });
  });
});

describe('a lead from WhatsApp', () => {
  it('keeps the visitor phone number in E.164 as its channel contact, taken once from the email written after the wait ran out', async () => {
    const { bot, connection } = await connected();
    await stack.makePro(bot.ownerId);
    await enableHandoff(stack.chatbots, bot);
    await signedPost('whatsapp', connection.id, whatsappTextEvent(PHONE_ID, '447700900123', 'I want to talk to a person'));
    await until(
      () => meta.sent,
      (s) => s.length === 1,
      'the answer',
    );
    const { waiting } = await until(
      () => stack.client.listInbox({ ownerId: bot.ownerId }),
      (r) => r.waiting.some((i) => i.chatbotId === bot.id),
      'the waiting conversation',
    );
    const conversationId = waiting.find((i) => i.chatbotId === bot.id)!.conversationId;
    const { handoffRequestedAt } = await stack.parts.prisma.conversation.findUniqueOrThrow({ where: { id: conversationId } });
    expect(await handoffTimedOut(stack.parts.deps.handoffCore, { conversationId, requestedAt: handoffRequestedAt! })).toBe(true);
    await until(
      () => meta.sent,
      (s) => s.length === 2,
      'the timeout message',
    );
    expect(meta.sent[1]).toMatchObject({ to: '447700900123', text: TIMEOUT_MESSAGE });
    // The same message delivered twice (Meta's retry): one lead, one thanks.
    const reply = whatsappTextEvent(PHONE_ID, '447700900123', 'It is ada.lovelace@example.com');
    await signedPost('whatsapp', connection.id, reply);
    await signedPost('whatsapp', connection.id, reply);
    await until(
      () => meta.sent,
      (s) => s.length === 3,
      'the thanks',
    );
    expect(meta.sent[2]).toMatchObject({ to: '447700900123', text: leadTaken('ada.lovelace@example.com') });
    const { leads } = await stack.client.listLeads({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(leads.map((l) => [l.email, l.source, l.channel, l.channelContact, l.conversationId])).toEqual([
      ['ada.lovelace@example.com', 'handoff_timeout', 'whatsapp', '+447700900123', conversationId],
    ]);
  });

  it('writes a WhatsApp chat id as E.164 and leaves every other channel, and an id that is no phone number, as it is', () => {
    expect(contactOf('whatsapp', '15551230005')).toBe('+15551230005');
    expect(contactOf('whatsapp', '0123')).toBe('0123');
    expect(contactOf('whatsapp', '1234567890123456')).toBe('1234567890123456');
    expect(contactOf('telegram', '8404')).toBe('8404');
    expect(contactOf('messenger', '24000000000001')).toBe('24000000000001');
  });
});

describe('Messenger and Instagram', () => {
  it('answer a signed message through /me/messages and the Instagram account, within their text limits', async () => {
    const page = await connected('messenger');
    await signedPost('messenger', page.connection.id, messagingTextEvent('page', PAGE_ID, '7001002003', 'Is the museum open every day?'));
    const ig = await connected('instagram');
    await signedPost('instagram', ig.connection.id, messagingTextEvent('instagram', IG_ID, '7001002004', 'Is the museum open every day?'));
    await until(
      () => meta.sent,
      (s) => s.length === 2,
      'both answers',
    );
    expect(meta.sent.map((s) => [s.accountId, s.to]).sort()).toEqual([
      [IG_ID, '7001002004'],
      [PAGE_ID, '7001002003'],
    ]);
    expect(
      meta.calls
        .filter((c) => c.method === 'POST' && c.path.endsWith('/messages'))
        .map((c) => c.path)
        .sort(),
    ).toEqual([`/${IG_ID}/messages`, '/me/messages']);
    // The page's signature does not open the Instagram connection's webhook under another channel.
    const err = await rpcError(signedPost('messenger', ig.connection.id, messagingTextEvent('page', PAGE_ID, '1', 'hi')));
    expect(err.code).toBe(Code.PermissionDenied);
  });
});
