// The operator's Slack app's one Request URL (docs/adr/0075-one-request-url-for-the-operators-slack-app.md):
// two owners add the app to two Slack workspaces; every workspace's events are posted to the one path
// POST /api/channels/slack/events, checked under the app's signing secret (401 missing, 403 wrong,
// truncated, old or over a changed body: nothing queued, no expected value told), and routed by the
// event's team_id to the connection installed there: answered in that workspace's thread with its
// bot token and shown in its owner's History alone. An event of a workspace with no install is 200
// and left; the same event five times at once is answered and billed once; a second chatbot's
// install into a workspace that has one is refused, naming the chatbot that holds it. Real services,
// PostgreSQL, Redis and BullMQ, the fake Slack and a model, so that every answer is billed.
import { signSlack, slackEvent, startFakeSlack, type FakeSlack } from '@parley/common/testing/fake-slack.ts';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { verifierCache } from '@parley/common/channel-webhook.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelIntake } from '../src/features/channels/channel-intake.ts';
import type { Clients } from '../src/http/clients.ts';
import { usageRecordCount } from './billing-fixtures.ts';
import { makePro, museumBot, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, inboundJobCount, pollUntil, startStack, TEST_PUBLIC_URL, type Stack } from './stack.ts';

const ALPHA_TOKEN = 'xoxb-1212121212-3434343434-AlphaWorkspaceTokenAlph';
const BRAVO_TOKEN = 'xoxb-5656565656-7878787878-BravoWorkspaceTokenBrav';
const APP = { clientId: '5555555555.6666666666', clientSecret: 'fake-client-secret-app-path-0123456789' };
const SIGNING_SECRET = 'abcdef0123456789abcdef0123456789';
const ALPHA = 'T0ALPHA';
const BRAVO = 'T0BRAVO';
const APP_PATH = '/api/channels/slack/events';
const REFUSED = { message: 'The request signature is not valid, or its timestamp is too old.' };
const ANSWER = 'The museum opens at ten and closes at six. [1]';

let stack: Stack;
let slack: FakeSlack;
let model: FakeOpenAI;
let alice: Owner;
let bob: Owner;
let aliceBot: string;
let bobBot: string;

/** The member's "Add to Slack" through the fake's authorize page, with the app giving `botToken` (its workspace's). */
async function addToSlack(owner: Owner, chatbotId: string, botToken: string): Promise<Response> {
  slack.set({ app: { ...APP, botToken } });
  const started = await api(stack.url, `/api/chatbot/${chatbotId}/channels/slack/install`, { method: 'POST', token: owner.token });
  expect(started.status).toBe(200);
  const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0];
  const authorized = await fetch(started.body.authorizeUrl as string, { redirect: 'manual' });
  const back = new URL(authorized.headers.get('location')!);
  expect(back.origin).toBe(new URL(TEST_PUBLIC_URL).origin);
  return fetch(stack.url + back.pathname + back.search, { redirect: 'manual', headers: { cookie } });
}

const CONNECTIONS = 'query($c: ID!) { channelConnections(chatbotId: $c) { id channel accountId addedToSlack } }';
const connectionsOf = async (owner: Owner, chatbotId: string) =>
  (await gql(stack.url, CONNECTIONS, { c: chatbotId }, owner.token)).body.data.channelConnections as {
    id: string;
    accountId: string;
    addedToSlack: boolean;
  }[];

function post(opts: { payload: unknown; signature?: string; timestamp?: string; body?: string }) {
  const body = JSON.stringify(opts.payload);
  const timestamp = opts.timestamp ?? String(Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-slack-request-timestamp': timestamp };
  const signature = opts.signature ?? signSlack(SIGNING_SECRET, timestamp, body);
  if (signature) headers['x-slack-signature'] = signature;
  return api(stack.url, APP_PATH, { method: 'POST', rawBody: opts.body ?? body, headers });
}

const conversationsOf = async (owner: Owner, chatbotId: string) =>
  (
    await gql(
      stack.url,
      'query($c: ID!) { conversations(chatbotId: $c) { visitorId messageCount channel } }',
      { c: chatbotId },
      owner.token,
    )
  ).body.data.conversations as { visitorId: string; messageCount: number; channel: string }[];

const settle = () => new Promise((r) => setTimeout(r, 500));

beforeAll(async () => {
  model = await startFakeOpenAI({ reply: ANSWER });
  slack = await startFakeSlack({
    bots: { [ALPHA_TOKEN]: 'parley_app', [BRAVO_TOKEN]: 'parley_app' },
    teams: { [ALPHA_TOKEN]: { id: ALPHA, name: 'Alpha Co' }, [BRAVO_TOKEN]: { id: BRAVO, name: 'Bravo Co' } },
    app: { ...APP, botToken: ALPHA_TOKEN },
  });
  stack = await startStack({
    chatEnv: {
      SLACK_API_BASE: slack.url,
      SLACK_CLIENT_ID: APP.clientId,
      SLACK_CLIENT_SECRET: APP.clientSecret,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: model.url,
    },
    gatewayEnv: { SLACK_CLIENT_ID: APP.clientId, SLACK_AUTHORIZE_URL: `${slack.url}/oauth/v2/authorize` },
  });
  alice = await registerOwner(stack, 'slack-app-alice');
  bob = await registerOwner(stack, 'slack-app-bob');
  await Promise.all([makePro(stack, alice), makePro(stack, bob)]);
  aliceBot = await museumBot(stack, alice);
  bobBot = await museumBot(stack, bob);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await slack?.close();
  await model?.close();
});

describe("the operator's Slack app", () => {
  it('is added to two workspaces by two owners, each connection keeping its own workspace and needing no Request URL', async () => {
    expect((await addToSlack(alice, aliceBot, ALPHA_TOKEN)).status).toBe(303);
    expect((await addToSlack(bob, bobBot, BRAVO_TOKEN)).status).toBe(303);
    expect(await connectionsOf(alice, aliceBot)).toMatchObject([{ accountId: ALPHA, addedToSlack: true }]);
    expect(await connectionsOf(bob, bobBot)).toMatchObject([{ accountId: BRAVO, addedToSlack: true }]);
  });

  it('answers the url_verification challenge on the one path once it is signed', async () => {
    const payload = { token: 't', challenge: 'one-path-challenge', type: 'url_verification' };
    const res = await post({ payload });
    expect([res.status, res.body]).toEqual([200, { challenge: 'one-path-challenge' }]);
    expect((await post({ payload, signature: signSlack('0'.repeat(32), String(Math.floor(Date.now() / 1000)), '{}') })).status).toBe(403);
  });

  it("answers each workspace's mention in its own thread, with its own bot token, in its own owner's History", async () => {
    const inAlpha = slackEvent({
      teamId: ALPHA,
      type: 'mention',
      channel: 'C0ALPHA',
      threadTs: '1700000000.000100',
      text: 'When do you open?',
    });
    const inBravo = slackEvent({
      teamId: BRAVO,
      type: 'mention',
      channel: 'C0BRAVO',
      threadTs: '1700000000.000200',
      text: 'When do you open?',
    });
    const [a, b] = await Promise.all([
      slack.deliver(stack.url + APP_PATH, SIGNING_SECRET, inAlpha),
      slack.deliver(stack.url + APP_PATH, SIGNING_SECRET, inBravo),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    await slack.sentCount(2);
    const to = (channel: string) => slack.sent.filter((s) => s.channel === channel);
    expect(to('C0ALPHA')).toMatchObject([{ token: ALPHA_TOKEN, thread_ts: '1700000000.000100' }]);
    expect(to('C0BRAVO')).toMatchObject([{ token: BRAVO_TOKEN, thread_ts: '1700000000.000200' }]);
    expect(to('C0ALPHA')[0].text).toContain('The museum opens at ten');
    const alices = await pollUntil(
      () => conversationsOf(alice, aliceBot),
      (c) => c[0]?.messageCount === 2,
      "alice's conversation",
    );
    const bobs = await pollUntil(
      () => conversationsOf(bob, bobBot),
      (c) => c[0]?.messageCount === 2,
      "bob's conversation",
    );
    expect(alices).toEqual([{ visitorId: 'slack:C0ALPHA:1700000000.000100', messageCount: 2, channel: 'slack' }]);
    expect(bobs).toEqual([{ visitorId: 'slack:C0BRAVO:1700000000.000200', messageCount: 2, channel: 'slack' }]);
  });

  it('refuses a missing, wrong, truncated or old signature and a body changed after signing, queueing nothing', async () => {
    const before = await inboundJobCount(stack);
    const payload = slackEvent({ teamId: ALPHA, channel: 'D0REFUSED', text: 'hello' });
    const body = JSON.stringify(payload);
    const ts = String(Math.floor(Date.now() / 1000));
    const old = String(Math.floor(Date.now() / 1000) - 10 * 60);
    const good = signSlack(SIGNING_SECRET, ts, body);
    const missing = await post({ payload, signature: '' });
    expect(missing.status).toBe(401);
    const noTimestamp = await api(stack.url, APP_PATH, {
      method: 'POST',
      rawBody: body,
      headers: { 'content-type': 'application/json', 'x-slack-signature': good },
    });
    expect(noTimestamp.status).toBe(401);
    for (const res of [
      await post({ payload, signature: 'v0=' + '0'.repeat(64), timestamp: ts }),
      await post({ payload, signature: signSlack('another-apps-signing-secret-0000', ts, body), timestamp: ts }),
      await post({ payload, signature: good.slice(0, 40), timestamp: ts }),
      await post({ payload, signature: signSlack(SIGNING_SECRET, old, body), timestamp: old }),
      await post({ payload, signature: good, timestamp: ts, body: body.replace('hello', 'HELLO') }),
    ]) {
      expect([res.status, res.body]).toEqual([403, REFUSED]);
      expect(JSON.stringify(res.body)).not.toContain(good.slice(3, 20));
    }
    expect(await inboundJobCount(stack)).toBe(before);
    expect(slack.sent.filter((s) => s.channel === 'D0REFUSED')).toEqual([]);
  });

  it('acknowledges an event of a workspace with no install and leaves it', async () => {
    const before = await inboundJobCount(stack);
    const res = await post({ payload: slackEvent({ teamId: 'T0NOBODY', channel: 'D0NOBODY', text: 'Anyone there?' }) });
    expect([res.status, res.body]).toEqual([200, { ok: true }]);
    await settle();
    expect(await inboundJobCount(stack)).toBe(before);
    expect(slack.sent.filter((s) => s.channel === 'D0NOBODY')).toEqual([]);
  });

  it('answers and bills the same event once when Slack delivers it 5 times at once', async () => {
    const event = slackEvent({ teamId: BRAVO, channel: 'D0TWICE', text: 'Is the museum open every day?' });
    const billedBefore = await usageRecordCount(stack, bob);
    const requestsBefore = model.requests.length;
    const acks = await Promise.all([
      slack.deliver(stack.url + APP_PATH, SIGNING_SECRET, event),
      ...[1, 2, 3, 4].map((n) => slack.deliver(stack.url + APP_PATH, SIGNING_SECRET, event, { retryNum: n })),
    ]);
    expect(acks.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    await pollUntil(
      () => slack.sent.filter((s) => s.channel === 'D0TWICE'),
      (s) => s.length >= 1,
      'the answer',
    );
    await pollUntil(
      () => usageRecordCount(stack, bob),
      (n) => n > billedBefore,
      'the answer billed',
    );
    await settle();
    expect(slack.sent.filter((s) => s.channel === 'D0TWICE')).toMatchObject([{ token: BRAVO_TOKEN }]);
    expect(model.requests.length - requestsBefore).toBe(1);
    expect(await usageRecordCount(stack, bob)).toBe(billedBefore + 1);
  });

  it("refuses a second chatbot's install into a workspace that has one, naming the owner's chatbot that holds it", async () => {
    const second = (await api(stack.url, '/api/chatbot', { body: { name: 'Second Bot' }, token: alice.token })).body;
    const first = (await api(stack.url, `/api/chatbot/${aliceBot}`, { token: alice.token })).body;
    const mine = await addToSlack(alice, second._id, ALPHA_TOKEN);
    expect(mine.status).toBe(400);
    expect(await mine.text()).toContain(`already answers as your chatbot ${first.uniqueId}`);
    expect(await connectionsOf(alice, second._id)).toEqual([]);
    // Another account's chatbot is not named.
    const theirs = await addToSlack(
      bob,
      (await api(stack.url, '/api/chatbot', { body: { name: 'Bob Two' }, token: bob.token })).body._id,
      ALPHA_TOKEN,
    );
    const text = await theirs.text();
    expect(theirs.status).toBe(400);
    expect(text).toContain('another Parley account');
    expect(text).not.toContain(first.uniqueId);
    expect(await connectionsOf(alice, aliceBot)).toMatchObject([{ accountId: ALPHA, addedToSlack: true }]);
  });

  it("turns a workspace's connection failing when Slack says the app was uninstalled there; a revoked user token alone changes nothing", async () => {
    const STATE = 'query($c: ID!) { channelConnections(chatbotId: $c) { status lastError } }';
    const stateOf = async (owner: Owner, chatbotId: string) =>
      (await gql(stack.url, STATE, { c: chatbotId }, owner.token)).body.data.channelConnections as {
        status: string;
        lastError: string | null;
      }[];
    const removal = (teamId: string, event: Record<string, unknown>) => ({
      token: 't',
      team_id: teamId,
      api_app_id: 'A0APP',
      type: 'event_callback',
      event_id: `Ev${teamId}${String(event.type).replace(/_/g, '')}`,
      event_time: Math.floor(Date.now() / 1000),
      event,
    });
    const userTokenOnly = await post({ payload: removal(ALPHA, { type: 'tokens_revoked', tokens: { oauth: ['U0ALICE'] } }) });
    expect([userTokenOnly.status, userTokenOnly.body]).toEqual([200, { ok: true }]);
    // Signed under another secret: refused, and the connection is left as it was.
    const forged = JSON.stringify(removal(BRAVO, { type: 'app_uninstalled' }));
    const timestamp = String(Math.floor(Date.now() / 1000));
    expect((await post({ payload: null, body: forged, signature: signSlack('0'.repeat(32), timestamp, forged), timestamp })).status).toBe(
      403,
    );
    expect(await stateOf(bob, bobBot)).toMatchObject([{ status: 'connected' }]);

    const uninstalled = await post({ payload: removal(BRAVO, { type: 'app_uninstalled' }) });
    expect([uninstalled.status, uninstalled.body]).toEqual([200, { ok: true }]);
    expect(await stateOf(bob, bobBot)).toEqual([
      {
        status: 'failing',
        lastError:
          'Parley was removed from this Slack workspace (the app uninstalled or its bot token revoked). Add it to Slack again, or disconnect.',
      },
    ]);
    expect(await stateOf(alice, aliceBot)).toMatchObject([{ status: 'connected' }]);
  });
});

describe("the app's secret and each workspace's install at the gateway", () => {
  it('are asked of chat once each while kept, concurrent first calls sharing one ask; a workspace without an install each time', async () => {
    const asked: string[] = [];
    const installs: Record<string, string> = {
      [ALPHA]: '11111111-1111-4111-8111-111111111111',
      [BRAVO]: '22222222-2222-4222-8222-222222222222',
    };
    const chat = {
      getChannelVerifier: async (req: { slackApp?: boolean; slackTeamId?: string }) => {
        asked.push(req.slackTeamId || 'app');
        const connectionId = installs[req.slackTeamId ?? ''] ?? '';
        return {
          found: true,
          connectionId,
          secretHash: '',
          signingSecret: SIGNING_SECRET,
          appSecret: '',
          accountId: connectionId ? req.slackTeamId : '',
        };
      },
    } as unknown as Clients['chat'];
    const queued: string[] = [];
    const intake = channelIntake({
      clients: { chat },
      inbound: { publish: async (_event, jobId) => void queued.push(jobId), close: async () => {} },
      verifiers: verifierCache({ max: 10, ttlMs: 60_000 }),
    });
    const signed = (payload: unknown) => {
      const body = JSON.stringify(payload);
      const timestamp = String(Math.floor(Date.now() / 1000));
      return { signature: signSlack(SIGNING_SECRET, timestamp, body), timestamp, body: Buffer.from(body) };
    };
    const events = [ALPHA, ALPHA, BRAVO, ALPHA, BRAVO].map((teamId) => signed(slackEvent({ teamId, channel: 'D0KEPT', text: 'hello' })));
    expect((await Promise.all(events.map((e) => intake.slackApp(e)))).map((r) => r.queued)).toEqual([true, true, true, true, true]);
    expect(asked.sort()).toEqual(['T0ALPHA', 'T0BRAVO', 'app']);
    expect(queued.filter((id) => id.startsWith(`slack:${installs[ALPHA]}:`))).toHaveLength(3);
    expect(queued.filter((id) => id.startsWith(`slack:${installs[BRAVO]}:`))).toHaveLength(2);
    const nobody = signed(slackEvent({ teamId: 'T0NOBODY', channel: 'D0KEPT', text: 'hello' }));
    expect(await intake.slackApp(nobody)).toEqual({ queued: false });
    expect(await intake.slackApp(nobody)).toEqual({ queued: false });
    expect(asked.filter((t) => t === 'T0NOBODY')).toHaveLength(2);
    expect(queued).toHaveLength(5);
  });
});
