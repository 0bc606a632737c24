// A chatbot's Slack channel through the gateway (docs/adr/0057-slack-channel.md): connected on
// GraphQL with the bot token and the app's signing secret (neither answered again, the webhook URL
// to give Slack answered instead), the public Events API path POST /api/channels/slack/{connectionId}
// verified by its v0 signature (401 missing, 403 wrong, replayed or over a changed body; nothing
// queued), Slack's url_verification answered with its challenge, a retried event answered once, and
// the conversation shown in History with its channel. Real services, PostgreSQL, Redis and BullMQ,
// the fake Slack Web API over HTTP.
import { Queue } from 'bullmq';
import { QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { signSlack, slackEvent, startFakeSlack, type FakeSlack } from '@parley/common/testing/fake-slack.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePro, museumBot, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, pollUntil, type Stack, startStack } from './stack.ts';

const TOKEN = 'xoxb-2233445566-6655443322-GatewaySlackTokenAbCd';
const SIGNING_SECRET = '0123456789abcdef0123456789abcdef';

let stack: Stack;
let slack: FakeSlack;
let owner: Owner;
let chatbotId: string;
let connectionId: string;
let webhookUrl: string;
beforeAll(async () => {
  slack = await startFakeSlack({ bots: { [TOKEN]: 'gateway_bot' } });
  stack = await startStack({ chatEnv: { SLACK_API_BASE: slack.url } });
  owner = await registerOwner(stack, 'slack');
  await makePro(stack, owner);
  chatbotId = await museumBot(stack, owner);
});
afterAll(async () => {
  await stack?.close();
  await slack?.close();
});

const CONNECT = `mutation($c: ID!, $t: String!, $s: String) { connectChannel(chatbotId: $c, channel: "slack", token: $t, signingSecret: $s) {
  id chatbotId channel status lastError tokenLastFour botName lastChatId createdAt webhookUrl } }`;

/** The gateway's own address for the public path Slack was given. */
const localPath = () => `/api/channels/slack/${connectionId}`;

function postEvent(opts: { payload?: unknown; signature?: string; timestamp?: string; body?: string; contentType?: string }) {
  const body = JSON.stringify(opts.payload ?? slackEvent({ channel: 'D0GW', text: 'Is the museum open every day?' }));
  const timestamp = opts.timestamp ?? String(Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = {
    'content-type': opts.contentType ?? 'application/json',
    'x-slack-request-timestamp': timestamp,
  };
  const signature = opts.signature ?? signSlack(SIGNING_SECRET, timestamp, body);
  if (signature) headers['x-slack-signature'] = signature;
  return api(stack.url, localPath(), { method: 'POST', rawBody: opts.body ?? body, headers });
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

describe('Slack on GraphQL', () => {
  it('connects with the bot token and signing secret, answers the webhook URL, and never the credentials', async () => {
    const refused = await gql(stack.url, CONNECT, { c: chatbotId, t: 'xoxb-0000000000-unknown-token', s: SIGNING_SECRET }, owner.token);
    expect(refused.body.errors[0].message).toBe('Slack refused this bot token.');
    const res = await gql(stack.url, CONNECT, { c: chatbotId, t: TOKEN, s: SIGNING_SECRET }, owner.token);
    const connection = res.body.data.connectChannel;
    expect(connection).toMatchObject({
      chatbotId,
      channel: 'slack',
      status: 'connected',
      tokenLastFour: 'AbCd',
      botName: 'gateway_bot (Parley Test)',
    });
    connectionId = connection.id;
    webhookUrl = connection.webhookUrl;
    expect(webhookUrl).toBe(`${stack.publicUrl}/api/channels/slack/${connectionId}`);
    expect(JSON.stringify(res.body)).not.toContain(TOKEN);
    expect(JSON.stringify(res.body)).not.toContain(SIGNING_SECRET);
  });
});

describe("Slack's Events API path", () => {
  it('answers the url_verification challenge Slack sends when the owner saves the Request URL', async () => {
    const res = await postEvent({ payload: { token: 't', challenge: 'chal-123', type: 'url_verification' } });
    expect([res.status, res.body]).toEqual([200, { challenge: 'chal-123' }]);
  });

  it('answers 401 without a signature and 403 for a wrong, truncated or replayed one or a changed body, queueing nothing', async () => {
    const before = await inboundJobs();
    const missing = await postEvent({ signature: '' });
    expect(missing.status).toBe(401);
    const old = String(Math.floor(Date.now() / 1000) - 10 * 60);
    const body = JSON.stringify(slackEvent({ channel: 'D0GW', text: 'hello' }));
    const ts = String(Math.floor(Date.now() / 1000));
    for (const res of [
      await postEvent({ signature: 'v0=' + '0'.repeat(64) }),
      await postEvent({ signature: signSlack(SIGNING_SECRET, ts, body).slice(0, 40), timestamp: ts, body }),
      await postEvent({ signature: signSlack(SIGNING_SECRET, old, body), timestamp: old, body }),
      await postEvent({ signature: signSlack(SIGNING_SECRET, ts, body), timestamp: ts, body: body.replace('hello', 'HELLO') }),
    ]) {
      expect([res.status, res.body]).toEqual([403, { message: 'The request signature is not valid, or its timestamp is too old.' }]);
    }
    expect(await inboundJobs()).toBe(before);
    expect((await postEvent({ contentType: 'text/plain' })).status).toBe(415);
    expect(slack.sent).toEqual([]);
  });

  it('answers a direct message once however often Slack retries it, and History shows the channel', async () => {
    const event = slackEvent({ channel: 'D0GW', text: 'Is the museum open every day?' });
    const results = await Promise.all([
      slack.deliver(webhookUrl.replace(stack.publicUrl, stack.url), SIGNING_SECRET, event),
      ...[1, 2, 3, 4].map((n) => slack.deliver(webhookUrl.replace(stack.publicUrl, stack.url), SIGNING_SECRET, event, { retryNum: n })),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const [answer] = await pollUntil(
      () => slack.sent,
      (s) => s.length >= 1,
      'the answer',
    );
    expect(answer.channel).toBe('D0GW');
    expect(answer.text).toContain('The museum opens at ten');
    const history = await pollUntil(
      () =>
        gql(stack.url, 'query($c: ID!) { conversations(chatbotId: $c) { visitorId messageCount channel } }', { c: chatbotId }, owner.token),
      (r) => r.body.data?.conversations?.[0]?.messageCount === 2,
      'the conversation',
    );
    expect(history.body.data.conversations).toEqual([{ visitorId: 'slack:D0GW', messageCount: 2, channel: 'slack' }]);
    expect(slack.sent).toHaveLength(1);
  });
});
