// A chatbot's email channel through the gateway (docs/adr/0063-email-channel.md): connected on
// GraphQL with the Mailgun webhook signing key (answered again by its last four only, with the
// inbound address and the webhook URL to give Mailgun), and the public path
// POST /api/channels/email/{connectionId} taking Mailgun's forwarded mail as multipart/form-data or
// urlencoded: a body that is no form is 415 or 400, an unsigned one 401, a wrong, old or replayed
// signature 403, nothing queued; a signed mail is answered by mail. Real services, PostgreSQL, Redis
// and BullMQ, the SMTP catcher for the answers.
import { Queue } from 'bullmq';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { inboundMail, postInbound, signedInbound, signMailgun } from '@parley/common/testing/fake-mailgun.ts';
import { startSmtpCatcher, type SmtpCatcher } from '@parley/common/testing/smtp-catcher.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, startStack, type Stack } from './stack.ts';

const KEY = 'key-0gateway0mailgun0signing0key0abcd';

let stack: Stack;
let smtp: SmtpCatcher;
let owner: Owner;
let chatbotId: string;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  stack = await startStack({ chatEnv: { EMAIL_SMTP_URL: smtp.url, EMAIL_INBOUND_DOMAIN: 'mail.gateway.test' } });
  owner = await registerOwner(stack, 'email');
  await makePro(stack, owner);
  const created = await api(stack.url, '/api/chatbot', { body: { name: 'Museum Bot' }, token: owner.token });
  chatbotId = created.body._id;
  await api(stack.url, `/api/chatbot/${chatbotId}/knowledge-base/text`, {
    body: { text: 'The museum opens at ten and closes at six, every day but Monday.' },
    token: owner.token,
  });
});
afterAll(async () => {
  await stack?.close();
  await smtp?.close();
});

const CONNECT = `mutation($c: ID!, $s: String) { connectChannel(chatbotId: $c, channel: "email", token: "", signingSecret: $s) {
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

describe('the email channel through the gateway', () => {
  it('connects, refuses what Mailgun did not sign, and answers a signed mail by mail', async () => {
    const res = await gql(stack.url, CONNECT, { c: chatbotId, s: KEY }, owner.token);
    expect(res.body.errors).toBeUndefined();
    const connection = res.body.data.connectChannel;
    expect([connection.channel, connection.status, connection.tokenLastFour]).toEqual(['email', 'connected', 'abcd']);
    expect(connection.accountId).toMatch(/^bot-[0-9a-f]{20}@mail\.gateway\.test$/);
    expect(connection.botName).toBe(connection.accountId);
    expect(connection.webhookUrl).toMatch(new RegExp(`/api/channels/email/${connection.id}$`));
    expect(JSON.stringify(res.body)).not.toContain(KEY);

    const url = `${stack.url}/api/channels/email/${connection.id}`;
    const fields = inboundMail({
      from: 'ada@example.com',
      to: connection.accountId,
      subject: 'Hours',
      text: 'Is the museum open every day?',
    });
    const before = await inboundJobs();
    const json = await api(stack.url, `/api/channels/email/${connection.id}`, { method: 'POST', body: signedInbound(KEY, fields) });
    expect(json.status).toBe(415);
    const truncated = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
      body: '--XyZ\r\nContent-Disposition: form-data; name="sender"\r\n\r\nada@exa',
    });
    expect(truncated.status).toBe(400);
    const unsigned = await postInbound(url, fields);
    expect(unsigned.status).toBe(401);
    const good = signedInbound(KEY, fields);
    const old = String(Math.floor(Date.now() / 1000) - 600);
    for (const form of [
      signedInbound('key-another0account0signing0key0000', fields),
      { ...good, timestamp: old, signature: signMailgun(KEY, old, good.token) },
      { ...good, signature: good.signature.slice(0, 40) },
    ]) {
      const refused = await postInbound(url, form);
      expect(refused.status).toBe(403);
      expect(refused.body).not.toContain(good.signature);
    }
    expect(await inboundJobs()).toBe(before);

    expect((await postInbound(url, good, { encoding: 'urlencoded' })).status).toBe(200);
    const replayed = await postInbound(url, { ...good, 'body-plain': 'Another body under the same signature' });
    expect(replayed.status).toBe(403);
    const answer = await smtp.waitForMail((m) => m.to.includes('ada@example.com'));
    expect([answer.from, answer.subject, answer.inReplyTo]).toEqual([connection.accountId, 'Re: Hours', fields['Message-Id']]);
    expect(answer.text).toContain('The museum opens at ten');
    expect(await inboundJobs()).toBe(before + 1);
  });
});
