// Slack's and Meta's webhooks checked and queued by the gateway itself
// (docs/adr/0069-slack-and-meta-checked-at-the-edge.md): every refusal (a signature missing, wrong,
// truncated, over a body changed after signing, under another connection's secret; Slack's timestamp
// missing or past its 5-minute window; an unknown connection) is 401 or 403, queues nothing and names
// no expected value; a verified message is queued under the provider's id once however often it is
// posted, with one GetChannelVerifier to chat and no ReceiveChannelUpdate; WhatsApp's status callbacks
// still reach chat's database through it. Real services, PostgreSQL, Redis and BullMQ, the fake Slack
// and Graph APIs.
import { ChannelMessageReceivedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import { CHANNEL_INBOUND_RETRIES, verifierCache } from '@parley/common/channel-webhook.ts';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { metaSignature, startFakeMeta, whatsappStatusEvent, whatsappTextEvent, type FakeMeta } from '@parley/common/testing/fake-meta.ts';
import { signSlack, slackEvent, startFakeSlack, type FakeSlack } from '@parley/common/testing/fake-slack.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGatewayConfig } from '../src/config.ts';
import { createClients, type Clients } from '../src/http/clients.ts';
import { channelIntake, SLACK_APP_NOT_CONFIGURED } from '../src/features/channels/channel-intake.ts';
import { makePro, museumBot, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, inboundJobCount, startStack, TEST_SERVICE_SECRET, type Stack } from './stack.ts';

const SLACK_TOKEN = 'xoxb-3344556677-7766554433-IntakeSlackTokenWxYz';
const SIGNING_SECRET = 'fedcba9876543210fedcba9876543210';
const PHONE_ID = '106540352242933';
const META_TOKEN = 'EAAGintakeSystemUserTokenForParleyTests5432';
const APP_SECRET = '1234567890abcdef1234567890abcdef';
const SLACK_REFUSED = { message: 'The request signature is not valid, or its timestamp is too old.' };
const META_REFUSED = { message: 'The signature does not match.' };
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

let stack: Stack;
let slack: FakeSlack;
let meta: FakeMeta;
let owner: Owner;
let slackId: string;
let whatsapp: { id: string; verifyToken: string };

beforeAll(async () => {
  slack = await startFakeSlack({ bots: { [SLACK_TOKEN]: 'intake_bot' } });
  meta = await startFakeMeta({ accounts: { [PHONE_ID]: { token: META_TOKEN, name: '+1 555-078-3882' } } });
  stack = await startStack({ chatEnv: { SLACK_API_BASE: slack.url, META_GRAPH_API_BASE: meta.url } });
  owner = await registerOwner(stack, 'channel-intake');
  await makePro(stack, owner);
  const chatbotId = await museumBot(stack, owner);
  const slackConnected = await gql(
    stack.url,
    'mutation($c: ID!, $t: String!, $s: String) { connectChannel(chatbotId: $c, channel: "slack", token: $t, signingSecret: $s) { id } }',
    { c: chatbotId, t: SLACK_TOKEN, s: SIGNING_SECRET },
    owner.token,
  );
  slackId = slackConnected.body.data.connectChannel.id;
  const metaConnected = await gql(
    stack.url,
    `mutation($c: ID!, $t: String!, $s: String, $a: String, $b: String) {
      connectChannel(chatbotId: $c, channel: "whatsapp", token: $t, appSecret: $s, accountId: $a, businessAccountId: $b) { id verifyToken } }`,
    { c: chatbotId, t: META_TOKEN, s: APP_SECRET, a: PHONE_ID, b: '102290129340399' },
    owner.token,
  );
  whatsapp = metaConnected.body.data.connectChannel;
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await slack?.close();
  await meta?.close();
});

const inboundJobs = () => inboundJobCount(stack);

const now = () => String(Math.floor(Date.now() / 1000));

function postSlack(opts: { connection?: string; body: string; signature?: string; timestamp?: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.signature) headers['x-slack-signature'] = opts.signature;
  if (opts.timestamp) headers['x-slack-request-timestamp'] = opts.timestamp;
  return api(stack.url, `/api/channels/slack/${opts.connection ?? slackId}`, { method: 'POST', rawBody: opts.body, headers });
}

function postMeta(opts: { connection?: string; channel?: string; body: string; signature?: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.signature !== undefined) headers['x-hub-signature-256'] = opts.signature;
  return api(stack.url, `/api/channels/${opts.channel ?? 'whatsapp'}/${opts.connection ?? whatsapp.id}`, {
    method: 'POST',
    rawBody: opts.body,
    headers,
  });
}

describe("Slack's webhook at the gateway", () => {
  it('refuses a missing signature or timestamp (401) and a wrong, truncated, old, future, re-signed or misdirected one (403), queueing nothing', async () => {
    const before = await inboundJobs();
    const body = JSON.stringify(slackEvent({ channel: 'D0IN', text: 'hello' }));
    const ts = now();
    const good = signSlack(SIGNING_SECRET, ts, body);
    for (const res of [await postSlack({ body, timestamp: ts }), await postSlack({ body, signature: good })]) {
      expect([res.status, res.body]).toEqual([401, { message: 'The request signature or its timestamp is missing.' }]);
    }
    const old = String(Number(ts) - 5 * 60 - 30);
    const future = String(Number(ts) + 5 * 60 + 30);
    const refusals = [
      await postSlack({ body, timestamp: ts, signature: signSlack('0'.repeat(32), ts, body) }),
      await postSlack({ body, timestamp: ts, signature: good.slice(0, -1) }),
      await postSlack({ body, timestamp: ts, signature: good.slice(0, 3) }),
      await postSlack({ body, timestamp: ts, signature: `${good}0` }),
      await postSlack({ body, timestamp: old, signature: signSlack(SIGNING_SECRET, old, body) }),
      await postSlack({ body, timestamp: future, signature: signSlack(SIGNING_SECRET, future, body) }),
      // The body changed after signing, and the timestamp changed after signing.
      await postSlack({ body: body.replace('hello', 'HELLO'), timestamp: ts, signature: good }),
      await postSlack({ body, timestamp: String(Number(ts) - 1), signature: good }),
      // Another connection's id, and a WhatsApp connection's: nothing tells them from a wrong signature.
      await postSlack({ connection: UNKNOWN, body, timestamp: ts, signature: good }),
      await postSlack({ connection: whatsapp.id, body, timestamp: ts, signature: good }),
      await postSlack({ connection: 'not-a-connection', body, timestamp: ts, signature: good }),
    ];
    for (const res of refusals) {
      expect([res.status, res.body]).toEqual([403, SLACK_REFUSED]);
      expect(JSON.stringify(res.body)).not.toContain(good.slice(3, 20));
    }
    expect(await inboundJobs()).toBe(before);
    expect(slack.sent).toEqual([]);
  });

  it("leaves an event of another workspace signed with the same app's secret: acknowledged, nothing queued", async () => {
    // One Slack app (the operator's, for Add to Slack) signs every workspace's events alike.
    const before = await inboundJobs();
    const body = JSON.stringify({ ...slackEvent({ channel: 'D0OTHER', text: 'Is the museum open every day?' }), team_id: 'T0ANOTHER' });
    const ts = now();
    const res = await postSlack({ body, timestamp: ts, signature: signSlack(SIGNING_SECRET, ts, body) });
    expect(res.status).toBe(200);
    expect(await inboundJobs()).toBe(before);
    // The workspace the connection's token is for is still answered.
    const own = JSON.stringify(slackEvent({ channel: 'D0OWN', text: 'Is the museum open every day?' }));
    expect((await postSlack({ body: own, timestamp: ts, signature: signSlack(SIGNING_SECRET, ts, own) })).status).toBe(200);
    expect(await inboundJobs()).toBe(before + 1);
  });

  it('queues a verified message once with one verifier fetch and no ReceiveChannelUpdate, and answers the challenge', async () => {
    const { intake, calls, close } = countedIntake();
    try {
      const event = slackEvent({ channel: 'D0ONCE', text: 'Is the museum open every day?' });
      const body = Buffer.from(JSON.stringify(event));
      const ts = now();
      const signature = signSlack(SIGNING_SECRET, ts, body.toString());
      const before = await inboundJobs();
      const results = await Promise.all(
        Array.from({ length: 5 }, () => intake.slack({ connectionId: slackId, signature, timestamp: ts, body })),
      );
      expect(results.map((r) => r.queued)).toEqual([true, true, true, true, true]);
      expect(await inboundJobs()).toBe(before + 1);
      const challenge = Buffer.from(JSON.stringify({ token: 't', challenge: 'chal-456', type: 'url_verification' }));
      expect(
        await intake.slack({
          connectionId: slackId,
          signature: signSlack(SIGNING_SECRET, ts, challenge.toString()),
          timestamp: ts,
          body: challenge,
        }),
      ).toEqual({ queued: false, challenge: 'chal-456' });
      expect(calls).toEqual(['getChannelVerifier']);
    } finally {
      await close();
    }
  });
});

describe("the operator's Slack app's one path where no Slack app is configured", () => {
  it('is 404 with a clear message, signed or not, and queues nothing', async () => {
    const before = await inboundJobs();
    const body = JSON.stringify(slackEvent({ channel: 'D0NOAPP', text: 'Is the museum open every day?' }));
    const ts = now();
    for (const signature of [signSlack(SIGNING_SECRET, ts, body), 'v0=' + '0'.repeat(64)]) {
      const res = await api(stack.url, '/api/channels/slack/events', {
        method: 'POST',
        rawBody: body,
        headers: { 'content-type': 'application/json', 'x-slack-signature': signature, 'x-slack-request-timestamp': ts },
      });
      expect([res.status, res.body]).toEqual([404, { message: SLACK_APP_NOT_CONFIGURED }]);
    }
    expect(await inboundJobs()).toBe(before);
  });
});

describe("Meta's webhook at the gateway", () => {
  it('refuses a missing signature (401) and a wrong, truncated, re-signed or misdirected one (403), queueing nothing', async () => {
    const before = await inboundJobs();
    const body = JSON.stringify(whatsappTextEvent(PHONE_ID, '15551238888', 'Is the museum open every day?'));
    const good = metaSignature(APP_SECRET, body);
    for (const res of [await postMeta({ body }), await postMeta({ body, signature: '' })]) {
      expect([res.status, res.body]).toEqual([401, { message: 'The X-Hub-Signature-256 header is missing.' }]);
    }
    const refusals = [
      await postMeta({ body, signature: metaSignature('0'.repeat(32), body) }),
      await postMeta({ body, signature: good.slice(0, -1) }),
      await postMeta({ body, signature: 'sha256=' }),
      await postMeta({ body, signature: good.slice(7) }),
      await postMeta({ body: body.replace('every day', 'on Monday'), signature: good }),
      await postMeta({ body: `${body} `, signature: good }),
      await postMeta({ connection: UNKNOWN, body, signature: good }),
      // The Slack connection's id on Meta's path, and the WhatsApp connection on Messenger's.
      await postMeta({ connection: slackId, body, signature: good }),
      await postMeta({ channel: 'messenger', body, signature: good }),
    ];
    for (const res of refusals) {
      expect([res.status, res.body]).toEqual([403, META_REFUSED]);
      expect(JSON.stringify(res.body)).not.toContain(good.slice(7, 30));
    }
    expect(await inboundJobs()).toBe(before);
    expect(meta.sent).toEqual([]);
  });

  it('answers the handshake for the verify token only, without asking chat again once the verifier is kept', async () => {
    const { intake, calls, close } = countedIntake();
    try {
      const handshake = (verifyToken: string, mode = 'subscribe') =>
        intake.metaHandshake({ channel: 'whatsapp', connectionId: whatsapp.id, mode, verifyToken });
      await handshake(whatsapp.verifyToken);
      for (const refused of [handshake('wrong'), handshake(''), handshake(whatsapp.verifyToken, 'unsubscribe')])
        await expect(refused).rejects.toMatchObject({ rawMessage: 'The verify token does not match.' });
      await expect(
        intake.metaHandshake({ channel: 'instagram', connectionId: whatsapp.id, mode: 'subscribe', verifyToken: whatsapp.verifyToken }),
      ).rejects.toMatchObject({ rawMessage: 'The verify token does not match.' });
      expect(calls).toEqual(['getChannelVerifier']);
    } finally {
      await close();
    }
  });

  it('queues a verified message once with no ReceiveChannelUpdate; a status callback is handed to chat, which moves its delivery', async () => {
    const { intake, calls, close } = countedIntake();
    try {
      const body = Buffer.from(
        JSON.stringify(whatsappTextEvent(PHONE_ID, '15551237777', 'Is the museum open every day?', { id: 'wamid.INTAKE' })),
      );
      const signature = metaSignature(APP_SECRET, body);
      const before = await inboundJobs();
      const results = await Promise.all(
        Array.from({ length: 5 }, () => intake.meta({ channel: 'whatsapp', connectionId: whatsapp.id, signature, body })),
      );
      expect(results.map((r) => r.queued)).toEqual([true, true, true, true, true]);
      expect(await inboundJobs()).toBe(before + 1);
      expect(calls).toEqual(['getChannelVerifier']);

      await meta.sentCount(1);
      const answer = meta.sent.find((s) => s.to === '15551237777')!;
      const deliveryStatus = async () => {
        const res = await gql(
          stack.url,
          'query($id: ID!) { channelDeliveries(connectionId: $id) { chatId status } }',
          { id: whatsapp.id },
          owner.token,
        );
        return (res.body.data.channelDeliveries as { chatId: string; status: string }[]).find((d) => d.chatId === '15551237777')?.status;
      };
      for (let i = 0; i < 100 && (await deliveryStatus()) !== 'sent'; i++) await new Promise((r) => setTimeout(r, 50));
      const status = Buffer.from(JSON.stringify(whatsappStatusEvent(PHONE_ID, answer.messageId, 'read', '15551237777')));
      await intake.meta({ channel: 'whatsapp', connectionId: whatsapp.id, signature: metaSignature(APP_SECRET, status), body: status });
      expect(await deliveryStatus()).toBe('read');
      expect(calls).toEqual(['getChannelVerifier', 'receiveChannelUpdate']);
    } finally {
      await close();
    }
  });
});

let sharedClients: Clients | undefined;
/** The gateway's own RPC clients, on this stack's services. */
function clientsOf(): Clients {
  sharedClients ??= createClients(readGatewayConfig({ LOG_LEVEL: 'silent', SERVICE_SECRET: TEST_SERVICE_SECRET, ...stack.gatewayEnv }));
  return sharedClients;
}

/** An intake of its own (its own kept verifiers) whose calls to chat are counted by method. */
function countedIntake() {
  const chat = clientsOf().chat;
  const calls: string[] = [];
  const counted = new Proxy(chat, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const redis = createRedis(stack.redisUrl);
  const intake = channelIntake({
    clients: { chat: counted },
    inbound: createProducer(redis, QUEUES.channelInbound, ChannelMessageReceivedSchema, {
      prefix: stack.queuePrefix,
      retries: CHANNEL_INBOUND_RETRIES,
    }),
    verifiers: verifierCache({ max: 10, ttlMs: 60_000 }),
  });
  return {
    intake,
    calls,
    close: async () => {
      await intake.close();
      await redis.quit();
    },
  };
}
