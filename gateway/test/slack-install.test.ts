// "Add to Slack" through the gateway (docs/adr/0064-channels-for-operators.md): offered only where
// the operator configured a Slack app; the start answers Slack's authorize URL with the scopes and a
// signed state and sets the browser's cookie; Slack's redirect back exchanges the code with
// oauth.v2.access (the fake Slack) and connects the bot token, sealed as a pasted one, with the app's
// signing secret; a replayed, forged, expired or cookieless state, a denied install and another
// workspace's chatbot are refused and connect nothing. Real services, PostgreSQL and Redis.
import { signSlack, slackEvent, startFakeSlack, type FakeSlack } from '@parley/common/testing/fake-slack.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INSTALL_DENIED, SLACK_SCOPES, STATE_REFUSED, stateSigner } from '../src/features/channels/slack-install.ts';
import { makePro, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, startStack, TEST_PUBLIC_URL, type Stack } from './stack.ts';

const BOT_TOKEN = 'xoxb-7788990011-1100998877-InstalledByOAuthAbCd';
const APP = { clientId: '1234567890.0987654321', clientSecret: 'fake-client-secret-0123456789abcdef', botToken: BOT_TOKEN };
const SIGNING_SECRET = 'fedcba9876543210fedcba9876543210';

let stack: Stack;
let unconfigured: Stack;
let slack: FakeSlack;
let owner: Owner;
let chatbotId: string;
beforeAll(async () => {
  slack = await startFakeSlack({ bots: { [BOT_TOKEN]: 'parley_app' }, app: APP });
  stack = await startStack({
    chatEnv: {
      SLACK_API_BASE: slack.url,
      SLACK_CLIENT_ID: APP.clientId,
      SLACK_CLIENT_SECRET: APP.clientSecret,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
    },
    gatewayEnv: { SLACK_CLIENT_ID: APP.clientId, SLACK_AUTHORIZE_URL: `${slack.url}/oauth/v2/authorize` },
  });
  owner = await registerOwner(stack, 'slack-install');
  await makePro(stack, owner);
});
afterAll(async () => {
  await unconfigured?.close();
  await stack?.close();
  await slack?.close();
});
let workspaces = 0;
beforeEach(async () => {
  // Each test's install goes into a workspace of its own: the app is installed once per workspace.
  slack.set({ installs: 'allow', teams: { [BOT_TOKEN]: { id: `T0INSTALL${++workspaces}`, name: 'Parley Test' } } });
  chatbotId = (await api(stack.url, '/api/chatbot', { body: { name: `Install Bot ${Date.now()}` }, token: owner.token })).body._id;
});

const CONNECTIONS = 'query($c: ID!) { channelConnections(chatbotId: $c) { id channel status botName tokenLastFour webhookUrl } }';
const connections = async (id = chatbotId, token = owner.token) =>
  (await gql(stack.url, CONNECTIONS, { c: id }, token)).body.data.channelConnections as { channel: string; tokenLastFour: string }[];

/** The member's "Add to Slack": the authorize URL and the browser's cookie. */
async function start(id = chatbotId, token = owner.token) {
  const res = await api(stack.url, `/api/chatbot/${id}/channels/slack/install`, { method: 'POST', token });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
  return { res, cookie, authorizeUrl: res.body.authorizeUrl as string };
}

/** Slack's authorize page (the fake answers at once) and the browser following its redirect to the gateway. */
async function authorize(authorizeUrl: string): Promise<string> {
  const res = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(back.origin).toBe(new URL(TEST_PUBLIC_URL).origin);
  return back.pathname + back.search;
}

const callback = (pathAndQuery: string, cookie?: string) =>
  fetch(stack.url + pathAndQuery, { redirect: 'manual', headers: cookie ? { cookie } : {} });

describe('Add to Slack', () => {
  it('is offered where the operator configured a Slack app, and not elsewhere', async () => {
    const offered = await api(stack.url, `/api/chatbot/${chatbotId}/channels/slack/install`, { token: owner.token });
    expect([offered.status, offered.body]).toEqual([200, { available: true }]);
    unconfigured = await startStack();
    const other = await registerOwner(unconfigured, 'slack-install-off');
    const bot = (await api(unconfigured.url, '/api/chatbot', { body: { name: 'Plain Bot' }, token: other.token })).body._id;
    const off = await api(unconfigured.url, `/api/chatbot/${bot}/channels/slack/install`, { token: other.token });
    expect([off.status, off.body]).toEqual([200, { available: false }]);
    const refused = await api(unconfigured.url, `/api/chatbot/${bot}/channels/slack/install`, { method: 'POST', token: other.token });
    expect(refused.status).toBe(404);
  });

  it('sends the member to Slack with the scopes and a state, exchanges the code and connects the bot token sealed', async () => {
    const { res, cookie, authorizeUrl } = await start();
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/);
    expect(res.headers.get('set-cookie')).toMatch(/SameSite=Lax/);
    const url = new URL(authorizeUrl);
    expect(url.origin + url.pathname).toBe(`${slack.url}/oauth/v2/authorize`);
    expect(url.searchParams.get('client_id')).toBe(APP.clientId);
    expect(url.searchParams.get('scope')).toBe(SLACK_SCOPES);
    expect(url.searchParams.get('redirect_uri')).toBe(`${TEST_PUBLIC_URL}/api/channels/slack/oauth/callback`);
    expect(url.searchParams.get('state')).toMatch(/^[\w-]{43}\.[0-9a-f-]{36}\.\d+\.[\w-]{43}$/);

    const back = await callback(await authorize(authorizeUrl), cookie);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`/chatbots/${chatbotId}?slack=connected#settings-channels`);
    const [connection] = await connections();
    expect(connection).toMatchObject({ channel: 'slack', status: 'connected', tokenLastFour: 'AbCd', botName: 'parley_app (Parley Test)' });
    expect(slack.calls.filter((c) => c.method === 'oauth.v2.access')).toHaveLength(1);

    // The connection checks Slack's events with the operator's app signing secret.
    const event = slackEvent({ channel: 'D0INSTALL', text: 'Hello' });
    const body = JSON.stringify({ type: 'url_verification', challenge: 'installed-challenge', token: 'x' });
    const ts = String(Math.floor(Date.now() / 1000));
    const path = new URL((connection as unknown as { webhookUrl: string }).webhookUrl).pathname;
    const verified = await api(stack.url, path, {
      method: 'POST',
      rawBody: body,
      headers: { 'x-slack-request-timestamp': ts, 'x-slack-signature': signSlack(SIGNING_SECRET, ts, body) },
    });
    expect([verified.status, verified.body]).toEqual([200, { challenge: 'installed-challenge' }]);
    expect(event.event.channel).toBe('D0INSTALL');
  });

  it('refuses a replayed state: the first use connects, the second connects nothing', async () => {
    const { cookie, authorizeUrl } = await start();
    const back = await authorize(authorizeUrl);
    expect((await callback(back, cookie)).status).toBe(303);
    const again = await callback(back, cookie);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain(STATE_REFUSED);
    expect(await connections()).toHaveLength(1);
  });

  it('refuses a forged or changed state, one without the browser cookie, another browser cookie, and one past its time', async () => {
    const first = await start();
    const back = new URL(await authorize(first.authorizeUrl), stack.url);
    const state = back.searchParams.get('state')!;
    const withState = (s: string) => {
      const u = new URL(back);
      u.searchParams.set('state', s);
      return u.pathname + u.search;
    };
    const forged = state.slice(0, -2) + (state.endsWith('AA') ? 'BB' : 'AA');
    for (const [path, cookie] of [
      [withState(forged), first.cookie],
      [withState(state.replace(chatbotId, '11111111-1111-4111-8111-111111111111')), first.cookie],
      [withState(''), first.cookie],
      [withState(state), undefined],
      [withState(state), 'parley_slack_install=someone-elses-browser'],
    ] as const) {
      const res = await callback(path, cookie);
      expect(res.status).toBe(400);
    }
    // The cookieless tries took the state: even the right browser cannot use it now (single use).
    expect((await callback(withState(state), first.cookie)).status).toBe(400);
    // A later expiry written into the state breaks its signature.
    const [nonce, bot, expiry, mac] = state.split('.');
    expect((await callback(withState([nonce, bot, String(Number(expiry) + 3_600_000), mac].join('.')), first.cookie)).status).toBe(400);
    expect(await connections()).toEqual([]);
  });

  it('a state is good for 10 minutes from its start, and only under the key it was signed with', () => {
    const signer = stateSigner('the-gateway-secret');
    const nonce = 'n'.repeat(43);
    const issued = 1_800_000_000_000;
    const state = signer.sign(nonce, chatbotId, issued + 600_000);
    expect(signer.verify(state, issued + 599_999)).toEqual({ nonce, chatbotId });
    expect(signer.verify(state, issued + 600_000)).toBeNull();
    expect(stateSigner('another-secret').verify(state, issued)).toBeNull();
  });

  it('a denied install connects nothing and says so', async () => {
    slack.set({ installs: 'deny' });
    const { cookie, authorizeUrl } = await start();
    const back = await authorize(authorizeUrl);
    expect(back).toContain('error=access_denied');
    const res = await callback(back, cookie);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(INSTALL_DENIED);
    expect(await connections()).toEqual([]);
  });

  it("refuses another workspace's chatbot at the start, and a code Slack refuses at the callback", async () => {
    const stranger = await registerOwner(stack, 'slack-install-stranger');
    const theirs = await start(chatbotId, stranger.token);
    expect(theirs.res.status).toBe(404);
    expect(theirs.res.headers.get('set-cookie')).toBeNull();

    const { cookie, authorizeUrl } = await start();
    const back = new URL(await authorize(authorizeUrl), stack.url);
    back.searchParams.set('code', '1234.5678.notacodeslackgave');
    const res = await callback(back.pathname + back.search, cookie);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Slack refused this install');
    expect(await connections()).toEqual([]);
  });
});
