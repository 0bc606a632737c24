// SMS through the gateway (docs/adr/0070-sms-channel.md): connected on GraphQL with the Account SID,
// the Auth Token (answered again by its last four only) and the Twilio number; the public path
// POST /api/channels/sms/{connectionId} takes Twilio's form-encoded requests, signed
// X-Twilio-Signature over the public URL (PUBLIC_URL and the path, as Twilio was given it) and the
// sorted parameters: not a form is 415, unsigned 401, a signature over another URL or other
// parameters 403, nothing queued; a signed message is answered with an empty TwiML response and the
// bot's answer through the fake Messages API; a status callback on the same path moves the delivery.
// Real services, PostgreSQL, Redis and BullMQ, the fake Twilio API over HTTP.
import { Queue } from 'bullmq';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { inboundSmsParams, postSigned, startFakeTwilio, twilioSignatureOf, type FakeTwilio } from '@parley/common/testing/fake-twilio.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePro, museumBot, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, pollUntil, type Stack, startStack, TEST_PUBLIC_URL } from './stack.ts';

const SID = 'ACfedcba9876543210fedcba9876543210';
const AUTH_TOKEN = 'fedcba9876543210fedcba987654abcd';
const NUMBER = '+15550100200';

let stack: Stack;
let twilio: FakeTwilio;
let owner: Owner;
let chatbotId: string;
beforeAll(async () => {
  twilio = await startFakeTwilio({ accounts: { [SID]: { authToken: AUTH_TOKEN, numbers: [NUMBER] } } });
  stack = await startStack({ chatEnv: { TWILIO_API_BASE: twilio.url } });
  owner = await registerOwner(stack, 'sms');
  await makePro(stack, owner);
  chatbotId = await museumBot(stack, owner);
});
afterAll(async () => {
  await stack?.close();
  await twilio?.close();
});

const CONNECT = `mutation($c: ID!, $t: String!, $a: String, $p: String) {
  connectChannel(chatbotId: $c, channel: "sms", token: $t, accountId: $a, phoneNumber: $p) {
    id channel status tokenLastFour botName accountId webhookUrl } }`;

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

describe('the SMS channel through the gateway', () => {
  it('connects, refuses what Twilio did not sign over the public URL, and answers a signed message by SMS', async () => {
    const refused = await gql(stack.url, CONNECT, { c: chatbotId, t: 'ffffffffffffffffffffffffffffffff', a: SID, p: NUMBER }, owner.token);
    expect(refused.body.errors[0].message).toBe('Twilio refused this Account SID and Auth Token.');
    const res = await gql(stack.url, CONNECT, { c: chatbotId, t: AUTH_TOKEN, a: SID, p: NUMBER }, owner.token);
    expect(res.body.errors).toBeUndefined();
    const connection = res.body.data.connectChannel;
    expect([connection.channel, connection.status, connection.tokenLastFour, connection.botName, connection.accountId]).toEqual([
      'sms',
      'connected',
      'abcd',
      NUMBER,
      SID,
    ]);
    const publicUrl = `${TEST_PUBLIC_URL}/api/channels/sms/${connection.id}`;
    expect(connection.webhookUrl).toBe(publicUrl);
    expect(JSON.stringify(res.body)).not.toContain(AUTH_TOKEN);

    // Twilio posts to the public URL; this test reaches the same gateway at its own address.
    const url = `${stack.url}/api/channels/sms/${connection.id}`;
    const params = inboundSmsParams({
      accountSid: SID,
      authToken: AUTH_TOKEN,
      from: '+447700900100',
      to: NUMBER,
      body: 'Is the museum open every day?',
    });
    const before = await inboundJobs();
    const json = await api(stack.url, `/api/channels/sms/${connection.id}`, { method: 'POST', body: params });
    expect(json.status).toBe(415);
    expect((await postSigned(url, AUTH_TOKEN, params, { signature: null })).status).toBe(401);
    expect((await postSigned(url, AUTH_TOKEN, params, { signature: '' })).status).toBe(401);
    for (const signature of [
      // Over the address the request reached, not the public URL Twilio was given.
      twilioSignatureOf(AUTH_TOKEN, url, params),
      twilioSignatureOf(AUTH_TOKEN, `${publicUrl}?a=1`, params),
      twilioSignatureOf(AUTH_TOKEN, publicUrl, { ...params, Body: 'Another body' }),
      twilioSignatureOf(AUTH_TOKEN, publicUrl, params).slice(0, 20),
      // Signed under another account's Auth Token.
      twilioSignatureOf('00000000000000000000000000000000', publicUrl, params),
    ]) {
      const wrong = await postSigned(url, AUTH_TOKEN, params, { signature });
      expect(wrong.status).toBe(403);
      expect(wrong.body).not.toContain(twilioSignatureOf(AUTH_TOKEN, publicUrl, params));
    }
    expect(await inboundJobs()).toBe(before);

    const good = await postSigned(url, AUTH_TOKEN, params, { signature: twilioSignatureOf(AUTH_TOKEN, publicUrl, params) });
    expect([good.status, good.body]).toEqual([200, '<?xml version="1.0" encoding="UTF-8"?><Response></Response>']);
    await twilio.sentCount(1);
    const [answer] = twilio.sent;
    expect([answer.from, answer.to, answer.statusCallback]).toEqual([NUMBER, '+447700900100', publicUrl]);
    expect(answer.body).toContain('The museum opens at ten');
    expect(await inboundJobs()).toBe(before + 1);

    // Twilio's status callback on the same path, signed over the StatusCallback URL it was given.
    const status = {
      MessageSid: answer.sid,
      MessageStatus: 'delivered',
      AccountSid: SID,
      From: NUMBER,
      To: answer.to,
      ApiVersion: '2010-04-01',
    };
    expect((await postSigned(url, AUTH_TOKEN, status, { signature: twilioSignatureOf(AUTH_TOKEN, publicUrl, status) })).status).toBe(200);
    const deliveries = await pollUntil(
      () =>
        gql(
          stack.url,
          `query($id: ID!) { channelDeliveries(connectionId: $id) { kind status chatId } }`,
          { id: connection.id },
          owner.token,
        ),
      (r) => r.body.data?.channelDeliveries?.[0]?.status === 'delivered',
      'the delivered status',
    );
    expect(deliveries.body.data.channelDeliveries).toEqual([{ kind: 'answer', status: 'delivered', chatId: '+447700900100' }]);
  });

  it("disconnects on GraphQL: Twilio out of reach is 503 in Twilio's words with the connection kept, then the number's webhook is cleared", async () => {
    const list = () => gql(stack.url, 'query($c: ID!) { channelConnections(chatbotId: $c) { id channel } }', { c: chatbotId }, owner.token);
    const [connection] = (await list()).body.data.channelConnections.filter((c: { channel: string }) => c.channel === 'sms');
    expect(twilio.number(NUMBER).smsUrl).toBe(`${TEST_PUBLIC_URL}/api/channels/sms/${connection.id}`);
    const disconnect = () =>
      gql(stack.url, 'mutation($id: ID!) { disconnectChannel(connectionId: $id) }', { id: connection.id }, owner.token);
    twilio.set({ numberFailures: 1 });
    const kept = await disconnect();
    expect(kept.body.errors[0].message).toBe('Twilio could not be reached. Please try again.');
    expect((await list()).body.data.channelConnections.map((c: { id: string }) => c.id)).toContain(connection.id);
    expect((await disconnect()).body.data.disconnectChannel).toBe(true);
    expect(twilio.number(NUMBER).smsUrl).toBe('');
    expect((await list()).body.data.channelConnections.map((c: { id: string }) => c.id)).not.toContain(connection.id);
  });
});
