// A chatbot's WhatsApp channel through the gateway (docs/product.md, Channels): connected on GraphQL
// with the account ids, the token and the app secret (never answered again), the callback URL and
// the verify token answered once; Meta's GET handshake on /api/channels/whatsapp/{connectionId}
// echoes hub.challenge for the verify token only; the POST is verified by X-Hub-Signature-256 over
// the raw body (401 missing, 403 wrong, truncated or over a changed body, nothing queued, no body
// naming the expected signature), and a signed message is answered through the fake Graph API and
// shown in History with its channel. Real services, PostgreSQL, Redis and BullMQ, the fake Graph API.
import { Queue } from 'bullmq';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { metaSignature, startFakeMeta, whatsappTextEvent, type FakeMeta } from '@parley/common/testing/fake-meta.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePro, museumBot, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, startStack, type Stack } from './stack.ts';

const PHONE_ID = '106540352242922';
const TOKEN = 'EAAGgatewaySystemUserTokenForParleyTests9876';
const APP_SECRET = 'abcdefabcdefabcdefabcdefabcdef12';

let stack: Stack;
let meta: FakeMeta;
let owner: Owner;
let chatbotId: string;
beforeAll(async () => {
  meta = await startFakeMeta({ accounts: { [PHONE_ID]: { token: TOKEN, name: '+1 555-078-3881' } } });
  stack = await startStack({ chatEnv: { META_GRAPH_API_BASE: meta.url } });
  owner = await registerOwner(stack, 'channels-meta');
  await makePro(stack, owner);
  chatbotId = await museumBot(stack, owner);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await meta?.close();
});

const CONNECT = `mutation($c: ID!, $t: String!, $s: String, $a: String, $b: String) {
  connectChannel(chatbotId: $c, channel: "whatsapp", token: $t, appSecret: $s, accountId: $a, businessAccountId: $b) {
    id channel status tokenLastFour botName accountId webhookUrl verifyToken } }`;

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

describe('WhatsApp through the gateway', () => {
  it('connects, passes the handshake with the verify token only, refuses unsigned or mis-signed posts, and answers a signed one', async () => {
    const res = await gql(stack.url, CONNECT, { c: chatbotId, t: TOKEN, s: APP_SECRET, a: PHONE_ID, b: '102290129340398' }, owner.token);
    const connection = res.body.data.connectChannel;
    expect([connection.channel, connection.status, connection.tokenLastFour, connection.botName, connection.accountId]).toEqual([
      'whatsapp',
      'connected',
      '9876',
      '+1 555-078-3881',
      PHONE_ID,
    ]);
    expect(connection.webhookUrl).toMatch(new RegExp(`/api/channels/whatsapp/${connection.id}$`));
    const path = `/api/channels/whatsapp/${connection.id}`;
    const listed = await gql(
      stack.url,
      `query($c: ID!) { channelConnections(chatbotId: $c) { verifyToken webhookUrl } }`,
      { c: chatbotId },
      owner.token,
    );
    expect(listed.body.data.channelConnections).toEqual([{ verifyToken: null, webhookUrl: connection.webhookUrl }]);
    expect(JSON.stringify(listed.body)).not.toContain(APP_SECRET);

    const handshake = (token: string, challenge = '1158201444', mode = 'subscribe') =>
      fetch(`${stack.url}${path}?${new URLSearchParams({ 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge })}`);
    const ok = await handshake(connection.verifyToken);
    expect([ok.status, await ok.text()]).toEqual([200, '1158201444']);
    for (const refused of [await handshake('wrong'), await handshake(connection.verifyToken, '1', 'unsubscribe')]) {
      expect(refused.status).toBe(403);
      expect(await refused.text()).not.toContain(connection.verifyToken);
    }
    expect((await handshake(connection.verifyToken, '<script>')).status).toBe(400);

    const before = await inboundJobs();
    const body = JSON.stringify(whatsappTextEvent(PHONE_ID, '15551239999', 'Is the museum open every day?', { name: 'Grace' }));
    const good = metaSignature(APP_SECRET, body);
    const post = (signature: string | undefined, raw = body, contentType = 'application/json') =>
      api(stack.url, path, {
        method: 'POST',
        rawBody: raw,
        headers: { 'content-type': contentType, ...(signature === undefined ? {} : { 'x-hub-signature-256': signature }) },
      });
    expect((await post(undefined)).status).toBe(401);
    for (const res of [
      await post(metaSignature('0'.repeat(32), body)),
      await post(good.slice(0, -2)),
      await post(`${good}00`),
      await post(good, body.replace('every day', 'on Monday')),
    ]) {
      expect(res.status).toBe(403);
      expect(JSON.stringify(res.body)).not.toContain(good.slice(7, 30));
    }
    expect((await post(good, body, 'text/plain')).status).toBe(415);
    expect(await inboundJobs()).toBe(before);

    expect((await post(good)).status).toBe(200);
    await meta.sentCount(1);
    expect(meta.sent[0]).toMatchObject({ accountId: PHONE_ID, to: '15551239999' });
    expect(meta.sent[0].text).toContain('The museum opens at ten');
  });
});
