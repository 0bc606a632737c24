// A chatbot's email channel through the gateway (docs/adr/0063-email-channel.md): connected on
// GraphQL with the Mailgun webhook signing key (answered again by its last four only, with the
// inbound address and the webhook URL to give Mailgun), and the public path
// POST /api/channels/email/{connectionId} taking Mailgun's forwarded mail as multipart/form-data or
// urlencoded: a body that is no form is 415 or 400, an unsigned one 401, a wrong, old or replayed
// signature 403, nothing queued; a signed mail is answered by mail. More than 30 mails an hour from
// one sender are skipped: the 31st is taken, never answered or billed, counted in chat's /metrics and
// listed to the owner (channelSkippedMessages). Real services, PostgreSQL, Redis and BullMQ, the SMTP
// catcher for the answers.
import { Queue } from 'bullmq';
import pg from 'pg';
import { parsePrometheusText } from '@parley/common/testing/prometheus-text.ts';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { inboundMail, postInbound, signedInbound, signMailgun } from '@parley/common/testing/fake-mailgun.ts';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { startSmtpCatcher, type SmtpCatcher } from '@parley/common/testing/smtp-catcher.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePro, museumBot, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, pollUntil, type Stack, startStack } from './stack.ts';

const KEY = 'key-0gateway0mailgun0signing0key0abcd';

let stack: Stack;
let smtp: SmtpCatcher;
let model: FakeOpenAI;
let owner: Owner;
let chatbotId: string;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  // A model, so that every answer is billed (offline answers cost nothing).
  model = await startFakeOpenAI({ reply: () => 'The museum opens at ten and closes at six.' });
  stack = await startStack({
    chatEnv: {
      EMAIL_SMTP_URL: smtp.url,
      EMAIL_INBOUND_DOMAIN: 'mail.gateway.test',
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: model.url,
    },
  });
  owner = await registerOwner(stack, 'email');
  await makePro(stack, owner);
  chatbotId = await museumBot(stack, owner);
});
afterAll(async () => {
  await stack?.close();
  await smtp?.close();
  await model?.close();
});

const CONNECT = `mutation($c: ID!, $s: String) { connectChannel(chatbotId: $c, channel: "email", token: "", signingSecret: $s) {
  id channel status tokenLastFour botName accountId webhookUrl } }`;

async function billedAnswers(userId: string): Promise<number> {
  const { databaseUrl, schema } = stack.billingDatabase;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(`SELECT count(*)::int AS n FROM "${schema}"."UsageRecord" WHERE "userId" = $1`, [userId])).rows[0].n;
  } finally {
    await client.end();
  }
}

/** parley_channel_inbound_skipped_total{channel="email",reason} as chat's /metrics reads it. */
async function skippedCount(reason: string): Promise<number> {
  const res = await fetch(`${stack.chatUrl}/metrics`);
  const family = parsePrometheusText(await res.text()).get('parley_channel_inbound_skipped_total');
  return family?.samples.find((s) => s.labels.channel === 'email' && s.labels.reason === reason)?.value ?? 0;
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

describe("email's per-sender cap", () => {
  it('answers 30 mails an hour from one sender and skips the 31st: taken, never answered, never billed, counted and listed', async () => {
    const capped = await registerOwner(stack, 'email-cap');
    await makePro(stack, capped);
    const created = await api(stack.url, '/api/chatbot', { body: { name: 'Capped Bot' }, token: capped.token });
    const res = await gql(stack.url, CONNECT, { c: created.body._id, s: KEY }, capped.token);
    expect(res.body.errors).toBeUndefined();
    const connection = res.body.data.connectChannel;
    const url = `${stack.url}/api/channels/email/${connection.id}`;
    const sender = `flood.${Date.now()}@example.com`;
    const mail = (i: number) =>
      inboundMail({ from: sender, to: connection.accountId, subject: `Question ${i}`, text: `Is the museum open on day ${i}?` });
    const before = await inboundJobs();
    const skippedBefore = await skippedCount('rate');

    // 30 mails in the hour, each a new thread: each queued and answered.
    for (let i = 1; i <= 30; i++) {
      expect((await postInbound(url, signedInbound(KEY, mail(i)))).status).toBe(200);
    }
    expect(await inboundJobs()).toBe(before + 30);
    const answered = () => smtp.mails.filter((m) => m.to.includes(sender)).length;
    await pollUntil(answered, (n) => n === 30, '30 answers', 150_000);
    await pollUntil(
      () => billedAnswers(capped.userId),
      (n) => n === 30,
      '30 answers billed',
      150_000,
    );

    const calls = model.requests.length;
    // The 31st is acknowledged (Mailgun must not retry it), taken with its reason, and queues nothing.
    const over = mail(31);
    expect((await postInbound(url, signedInbound(KEY, over))).status).toBe(200);
    expect(await inboundJobs()).toBe(before + 30);
    expect(await skippedCount('rate')).toBe(skippedBefore + 1);
    const skipped = await gql(
      stack.url,
      `query($id: ID!) { channelSkippedMessages(connectionId: $id) { contact reason receivedAt } }`,
      { id: connection.id },
      capped.token,
    );
    expect(skipped.body.errors).toBeUndefined();
    expect(skipped.body.data.channelSkippedMessages.map((s: { contact: string; reason: string }) => [s.contact, s.reason])).toEqual([
      [sender, 'rate'],
    ]);
    // Another workspace reads none of them.
    const other = await gql(
      stack.url,
      `query($id: ID!) { channelSkippedMessages(connectionId: $id) { contact } }`,
      { id: connection.id },
      owner.token,
    );
    expect(other.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    // Delivered again, the 31st is still the same skipped mail: nothing answered, billed or counted twice.
    expect((await postInbound(url, signedInbound(KEY, over))).status).toBe(200);
    expect(await inboundJobs()).toBe(before + 30);
    expect(await skippedCount('rate')).toBe(skippedBefore + 1);
    expect(await billedAnswers(capped.userId)).toBe(30);
    expect(answered()).toBe(30);
    expect(model.requests).toHaveLength(calls);
    expect(smtp.mails.some((m) => m.subject === 'Re: Question 31')).toBe(false);
  }, 60_000);
});
