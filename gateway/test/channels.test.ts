// A chatbot's Telegram channel through the gateway (docs/product.md, Channels): connected on GraphQL
// with the BotFather token (never answered again), the public webhook POST
// /api/channels/telegram/{connectionId} verified by its secret header (401 missing, 403 wrong or
// truncated, nothing queued, no body naming the secret), bad bodies refused (400, 413, 415), a
// verified update answered through the fake Bot API and shown in History with its channel. Real
// services, PostgreSQL, Redis and BullMQ, the fake Telegram Bot API over HTTP.
import { Queue } from 'bullmq';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { startFakeTelegram, telegramTextUpdate, type FakeTelegram } from '@parley/common/testing/fake-telegram.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MALFORMED_URL } from '../src/http/errors.ts';
import { makePro, museumBot, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, pollUntil, type Stack, startStack } from './stack.ts';

const TOKEN = '223344556:AAGatewayTestTokenForTelegram_0123abcd';

let stack: Stack;
let telegram: FakeTelegram;
let owner: Owner;
let chatbotId: string;
let connectionId: string;
let secret: string;
beforeAll(async () => {
  telegram = await startFakeTelegram({ bots: { [TOKEN]: 'gateway_bot' } });
  stack = await startStack({ chatEnv: { TELEGRAM_API_BASE: telegram.url } });
  owner = await registerOwner(stack, 'channels');
  await makePro(stack, owner);
  chatbotId = await museumBot(stack, owner);
});
afterAll(async () => {
  await stack?.close();
  await telegram?.close();
});

const CONNECT = `mutation($c: ID!, $t: String!) { connectChannel(chatbotId: $c, channel: "telegram", token: $t) {
  id chatbotId channel status lastError tokenLastFour botName lastChatId createdAt } }`;

/** Posts to the webhook path Telegram was given, as Telegram does (its path, on the stack's gateway). */
function postUpdate(opts: { secret?: string; body?: string; contentType?: string; connection?: string }) {
  const headers: Record<string, string> = { 'content-type': opts.contentType ?? 'application/json' };
  if (opts.secret !== undefined) headers['x-telegram-bot-api-secret-token'] = opts.secret;
  return api(stack.url, `/api/channels/telegram/${opts.connection ?? connectionId}`, {
    method: 'POST',
    rawBody: opts.body ?? JSON.stringify(telegramTextUpdate(9001, 'Is the museum open every day?')),
    headers,
  });
}

async function inboundJobs(): Promise<number> {
  const redis = createRedis(stack.redisUrl);
  const queue = new Queue(QUEUES.channelInbound, { connection: redis, prefix: stack.queuePrefix });
  try {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  } finally {
    await queue.close();
    await redis.quit();
  }
}

describe('the Channels section on GraphQL', () => {
  it('connects Telegram with the token, registers the public webhook path, and never answers the token', async () => {
    const refused = await gql(stack.url, CONNECT, { c: chatbotId, t: '999:AAnotAtokenTelegramKnowsAtAll_000000000' }, owner.token);
    expect(refused.body.errors[0].message).toBe('Telegram refused this bot token.');
    const res = await gql(stack.url, CONNECT, { c: chatbotId, t: TOKEN }, owner.token);
    const connection = res.body.data.connectChannel;
    expect(connection).toMatchObject({
      chatbotId,
      channel: 'telegram',
      status: 'connected',
      lastError: null,
      tokenLastFour: 'abcd',
      botName: 'gateway_bot',
    });
    connectionId = connection.id;
    const hook = telegram.webhooks.get(TOKEN)!;
    expect(hook.url).toBe(`${stack.publicUrl}/api/channels/telegram/${connectionId}`);
    secret = hook.secretToken;
    const listed = await gql(
      stack.url,
      'query($c: ID!) { channelConnections(chatbotId: $c) { id tokenLastFour } }',
      { c: chatbotId },
      owner.token,
    );
    expect(listed.body.data.channelConnections).toEqual([{ id: connectionId, tokenLastFour: 'abcd' }]);
    expect(JSON.stringify([res.body, listed.body])).not.toContain(TOKEN);
    expect(JSON.stringify([res.body, listed.body])).not.toContain(secret);
    // Another owner's chatbot is not found; nothing reaches Telegram.
    const other = await registerOwner(stack, 'other');
    const foreign = await gql(stack.url, CONNECT, { c: chatbotId, t: TOKEN }, other.token);
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('the public webhook', () => {
  it('answers 401 without the secret and 403 for a wrong, truncated or unknown one, queueing nothing and naming no secret', async () => {
    const before = await inboundJobs();
    const missing = await postUpdate({});
    expect([missing.status, missing.body]).toEqual([401, { message: 'The webhook secret is missing.' }]);
    for (const res of [
      await postUpdate({ secret: 'wrong' }),
      await postUpdate({ secret: secret.slice(0, 20) }),
      await postUpdate({ secret: `${secret}${secret}` }),
      await postUpdate({ secret, connection: '11111111-1111-4111-8111-111111111111' }),
      await postUpdate({ secret, connection: 'not-a-connection' }),
    ]) {
      expect([res.status, res.body]).toEqual([403, { message: 'The webhook secret does not match.' }]);
      expect(JSON.stringify(res.body)).not.toContain(secret);
    }
    expect(JSON.stringify(missing.body)).not.toContain(secret);
    expect(await inboundJobs()).toBe(before);
    expect(telegram.sent).toEqual([]);
  });

  it("is answered ahead of a page's layers: its request id and no-store, none of a page's headers; the API's path rules and 404 still", async () => {
    const ack = await postUpdate({ secret, body: JSON.stringify({ update_id: 70_001 }) });
    expect([ack.status, ack.body]).toEqual([200, { ok: true }]);
    expect(ack.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(ack.headers.get('x-request-id')).toBeTruthy();
    expect(ack.headers.get('cache-control')).toBe('no-store');
    expect(ack.headers.get('content-security-policy')).toBeNull();
    const refused = await postUpdate({ secret: 'wrong' });
    expect(refused.headers.get('content-security-policy')).toBeNull();
    // A path that does not decode is refused as on every /api path; a GET here, or a channel that is none, is the API's 404.
    const malformed = await api(stack.url, '/api/channels/telegram/%E0%A4%A', {
      method: 'POST',
      rawBody: '{}',
      headers: { 'x-telegram-bot-api-secret-token': secret },
    });
    expect([malformed.status, malformed.body]).toEqual([400, { message: MALFORMED_URL }]);
    for (const [method, path] of [
      ['GET', `/api/channels/telegram/${connectionId}`],
      ['POST', `/api/channels/fax/${connectionId}`],
    ]) {
      const other = await api(stack.url, path, { method, ...(method === 'POST' ? { rawBody: '{}' } : {}) });
      expect([other.status, other.body]).toEqual([404, { message: 'Not found' }]);
      expect(other.headers.get('content-security-policy')).toBeTruthy();
    }
  });

  it('refuses malformed JSON (400), a huge body (413) and a body that is not JSON (415)', async () => {
    const before = await inboundJobs();
    expect((await postUpdate({ secret, body: '{"update_id": 1,' })).status).toBe(400);
    expect((await postUpdate({ secret, body: '' })).status).toBe(400);
    const huge = await postUpdate({ secret, body: JSON.stringify({ update_id: 2, pad: 'x'.repeat(300 * 1024) }) });
    expect(huge.status).toBe(413);
    expect((await postUpdate({ secret, contentType: 'text/plain' })).status).toBe(415);
    expect(await inboundJobs()).toBe(before);
  });

  it('acknowledges a verified update at once; the bot answers through the Bot API and History shows the channel', async () => {
    const ack = await postUpdate({ secret });
    expect([ack.status, ack.body]).toEqual([200, { ok: true }]);
    const [answer] = await pollUntil(
      () => telegram.sent,
      (s) => s.length === 1,
      'the answer',
    );
    expect(answer.chat_id).toBe('9001');
    expect(answer.text).toContain('The museum opens at ten');
    const history = await gql(
      stack.url,
      'query($c: ID!) { conversations(chatbotId: $c) { visitorId messageCount channel } }',
      { c: chatbotId },
      owner.token,
    );
    expect(history.body.data.conversations).toEqual([{ visitorId: 'telegram:9001', messageCount: 2, channel: 'telegram' }]);
    const rest = await api(stack.url, `/api/chatbot/${chatbotId}/conversations`, { token: owner.token });
    expect(rest.body[0].channel).toBe('telegram');
  });

  it('the same update posted 5 times at once is acknowledged 5 times, queued once and answered once', async () => {
    const before = telegram.sent.length;
    const jobsBefore = await inboundJobs();
    const body = JSON.stringify(telegramTextUpdate(9002, 'Is the museum open on Monday?', { updateId: 77_001 }));
    const acks = await Promise.all(Array.from({ length: 5 }, () => postUpdate({ secret, body })));
    expect(acks.map((a) => [a.status, a.body])).toEqual(Array.from({ length: 5 }, () => [200, { ok: true }]));
    expect(await inboundJobs()).toBe(jobsBefore + 1);
    await pollUntil(
      () => telegram.sent,
      (s) => s.length === before + 1,
      'the answer',
    );
    // A later delivery of the same update (Telegram's retry) is acknowledged and changes nothing.
    expect((await postUpdate({ secret, body })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(telegram.sent.filter((m) => m.chat_id === '9002')).toHaveLength(1);
  });

  it('sends a test message to the last chat, lists its delivery, and disconnects (deleteWebhook)', async () => {
    const sent = await gql(
      stack.url,
      'mutation($id: ID!) { sendChannelTestMessage(connectionId: $id) { kind status attempts lastError chatId } }',
      { id: connectionId },
      owner.token,
    );
    expect(sent.body.data.sendChannelTestMessage).toEqual({ kind: 'test', status: 'sent', attempts: 1, lastError: null, chatId: '9002' });
    const deliveries = await gql(
      stack.url,
      'query($id: ID!) { channelDeliveries(connectionId: $id) { kind status } }',
      { id: connectionId },
      owner.token,
    );
    expect(deliveries.body.data.channelDeliveries).toEqual([
      { kind: 'test', status: 'sent' },
      { kind: 'answer', status: 'sent' },
      { kind: 'answer', status: 'sent' },
    ]);
    const gone = await gql(stack.url, 'mutation($id: ID!) { disconnectChannel(connectionId: $id) }', { id: connectionId }, owner.token);
    expect(gone.body.data.disconnectChannel).toBe(true);
    expect(telegram.webhooks.has(TOKEN)).toBe(false);
    expect((await postUpdate({ secret })).status).toBe(403);
  });
});
