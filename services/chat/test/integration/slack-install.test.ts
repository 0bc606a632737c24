// Slack's "Add to Slack" in chat (docs/adr/0064-channels-for-operators.md): the install's code is
// exchanged with oauth.v2.access under the operator's app, and the bot token Slack answers is
// connected as a pasted one (auth.test, sealed, with the app's signing secret). Not configured,
// malformed, refused (a code used twice, another redirect_uri) or unreachable: nothing is stored.
// The app's one Request URL (docs/adr/0075-one-request-url-for-the-operators-slack-app.md): the
// gateway is lent the app's secret and a workspace's one install; a second install there is refused.
// Real PostgreSQL, the fake Slack Web API over HTTP.
import { Code } from '@connectrpc/connect';
import { startFakeSlack, type FakeSlack } from '@parley/common/testing/fake-slack.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openSigningSecret,
  openToken,
  SLACK_UNREACHABLE,
  SLACK_WORKSPACE_HELD_ELSEWHERE,
  slackWorkspaceHeld,
} from '../../src/channels/connections.ts';
import { SLACK_INSTALL_NOT_CONFIGURED, SLACK_INSTALL_REFUSED } from '../../src/channels/slack-install.ts';
import { connectionRows, disconnectAs, disconnectWaitsForProvider, rpcError, startChatStack, type ChatStack } from './harness.ts';

const BOT_TOKEN = 'xoxb-5566778899-9988776655-ChatInstallTokenWxYz';
const APP = { clientId: '5555555555.6666666666', clientSecret: 'chat-test-client-secret-0123456789', botToken: BOT_TOKEN };
const SIGNING_SECRET = 'abcdefabcdef0123456789abcdef0123';
const REDIRECT = 'https://parley.example/api/channels/slack/oauth/callback';

let stack: ChatStack;
let plain: ChatStack;
let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack({ bots: { [BOT_TOKEN]: 'installed_bot' }, app: APP });
  stack = await startChatStack({
    SLACK_API_BASE: slack.url,
    SLACK_CLIENT_ID: APP.clientId,
    SLACK_CLIENT_SECRET: APP.clientSecret,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
  });
  plain = await startChatStack({ SLACK_API_BASE: slack.url });
});
afterAll(async () => {
  await plain?.stop();
  await stack?.stop();
  await slack?.close();
});

/** A code from the fake's authorize page, as Slack's redirect back carries it. */
async function codeFor(redirectUri = REDIRECT): Promise<string> {
  const q = new URLSearchParams({ client_id: APP.clientId, scope: 'chat:write', redirect_uri: redirectUri, state: 's' });
  const res = await fetch(`${slack.url}/oauth/v2/authorize?${q}`, { redirect: 'manual' });
  return new URL(res.headers.get('location')!).searchParams.get('code')!;
}

const install = (s: ChatStack, bot: { id: string; ownerId: string; uniqueId: string }, code: string, redirectUri = REDIRECT) =>
  s.client.connectSlackInstall({
    ownerId: bot.ownerId,
    chatbotId: bot.id,
    uniqueId: bot.uniqueId,
    code,
    redirectUri,
    webhookBaseUrl: 'https://parley.example/api/channels/slack',
  });

describe("Slack's install", () => {
  it('exchanges the code once and connects its bot token sealed, with the operator app signing secret', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Open every day.'] });
    const code = await codeFor();
    const { connection } = await install(stack, bot, code);
    expect(connection).toMatchObject({
      channel: 'slack',
      status: 'connected',
      tokenLastFour: 'WxYz',
      botName: 'installed_bot (Parley Test)',
    });
    const row = await stack.parts.prisma.channelConnection.findUniqueOrThrow({ where: { id: connection!.id } });
    expect(row.tokenCiphertext).not.toContain(BOT_TOKEN);
    expect(openToken(stack.parts.deps.channels.ciphers, row)).toBe(BOT_TOKEN);
    expect(openSigningSecret(stack.parts.deps.channels.ciphers, row.id, row.signingSecretCiphertext!)).toBe(SIGNING_SECRET);

    // The same code again (a replayed callback): Slack refuses it, nothing more is stored.
    const other = await stack.newChatbot({ knowledge: ['Open every day.'] });
    const replayed = await rpcError(install(stack, other, code));
    expect([replayed.code, replayed.rawMessage]).toEqual([Code.FailedPrecondition, SLACK_INSTALL_REFUSED]);
    expect(await stack.parts.prisma.channelConnection.count({ where: { chatbotId: other.id } })).toBe(0);
  });

  it('refuses a code given to another redirect_uri, a malformed code, and any install where no Slack app is configured', async () => {
    const bot = await stack.newChatbot({ knowledge: ['Open every day.'] });
    const elsewhere = await rpcError(install(stack, bot, await codeFor('https://evil.example/callback')));
    expect([elsewhere.code, elsewhere.rawMessage]).toEqual([Code.FailedPrecondition, SLACK_INSTALL_REFUSED]);
    const calls = slack.calls.length;
    const malformed = await rpcError(install(stack, bot, 'not a code <script>'));
    expect(malformed.code).toBe(Code.InvalidArgument);
    expect(slack.calls).toHaveLength(calls);
    const plainBot = await plain.newChatbot({ knowledge: ['Open every day.'] });
    const off = await rpcError(install(plain, plainBot, await codeFor()));
    expect([off.code, off.rawMessage]).toEqual([Code.FailedPrecondition, SLACK_INSTALL_NOT_CONFIGURED]);
    expect(await stack.parts.prisma.channelConnection.count({ where: { chatbotId: bot.id } })).toBe(0);
  });

  it("lends the app's secret and each workspace's one install to the gateway, and refuses a second install into a workspace", async () => {
    slack.set({ teams: { [BOT_TOKEN]: { id: 'T0CHATAPP', name: 'Chat App Co' } } });
    const bot = await stack.newChatbot({ knowledge: ['Open every day.'] });
    const { connection } = await install(stack, bot, await codeFor());
    expect(connection).toMatchObject({ accountId: 'T0CHATAPP', slackAppInstall: true });
    const ask = (s: ChatStack, slackTeamId: string) => s.client.getChannelVerifier({ channel: 'slack', slackApp: true, slackTeamId });
    expect(await ask(stack, 'T0CHATAPP')).toMatchObject({
      found: true,
      connectionId: connection!.id,
      accountId: 'T0CHATAPP',
      signingSecret: SIGNING_SECRET,
    });
    expect(await ask(stack, '')).toMatchObject({ found: true, connectionId: '', signingSecret: SIGNING_SECRET });
    expect(await ask(stack, 'T0NOBODY')).toMatchObject({ found: true, connectionId: '', accountId: '' });
    expect((await rpcError(ask(stack, 'not a team'))).code).toBe(Code.InvalidArgument);
    expect(await ask(plain, 'T0CHATAPP')).toMatchObject({ found: false, signingSecret: '' });

    // Another chatbot of the same owner, then another account's: refused, naming the holder to its own owner only.
    const second = await stack.newChatbot({ knowledge: ['Open every day.'] });
    const mine = await rpcError(install(stack, { ...second, ownerId: bot.ownerId }, await codeFor()));
    expect([mine.code, mine.rawMessage]).toEqual([Code.FailedPrecondition, slackWorkspaceHeld(bot.uniqueId)]);
    const theirs = await rpcError(install(stack, second, await codeFor()));
    expect([theirs.code, theirs.rawMessage]).toEqual([Code.FailedPrecondition, SLACK_WORKSPACE_HELD_ELSEWHERE]);
    expect(await stack.parts.prisma.channelConnection.count({ where: { chatbotId: second.id } })).toBe(0);
    // A pasted token of that workspace is the owner's own app: not an install, so not refused.
    const pasted = await stack.client.connectChannel({
      ownerId: second.ownerId,
      chatbotId: second.id,
      uniqueId: second.uniqueId,
      channel: 'slack',
      token: BOT_TOKEN,
      signingSecret: '0123456789abcdef0123456789abcdef',
      webhookBaseUrl: 'https://parley.example/api/channels/slack',
    });
    expect(pasted.connection).toMatchObject({ accountId: 'T0CHATAPP', slackAppInstall: false });
  });
});

describe('disconnecting an install (docs/adr/0076-registrations-at-the-provider.md)', () => {
  let seq = 0;
  /** An install into a workspace of its own, with a bot token of its own. */
  async function installed() {
    seq++;
    const token = `xoxb-5566778899-9988776655-Uninstall${seq}TokenAbCd`;
    const teamId = `T0UNINST${seq}`;
    slack.set({
      app: { ...APP, botToken: token },
      bots: { [BOT_TOKEN]: 'installed_bot', [token]: 'installed_bot' },
      teams: { [token]: { id: teamId, name: 'Uninstall Co' } },
      uninstallFailures: 0,
    });
    const bot = await stack.newChatbot({ knowledge: ['Open every day.'] });
    const { connection } = await install(stack, bot, await codeFor());
    expect(connection).toMatchObject({ accountId: teamId, slackAppInstall: true });
    return { bot, connectionId: connection!.id, token, teamId };
  }
  const uninstallCalls = () => slack.calls.filter((c) => c.method === 'apps.uninstall');

  it("uninstalls the operator's app from the workspace with the bot token, then removes the connection", async () => {
    const { bot, connectionId, token, teamId } = await installed();
    const before = uninstallCalls().length;
    expect((await disconnectAs(stack, bot, connectionId)).removed).toBe(true);
    expect(slack.uninstalled.at(-1)).toBe(teamId);
    expect(uninstallCalls().slice(before)).toEqual([{ method: 'apps.uninstall', token }]);
    expect(await connectionRows(stack, connectionId)).toBe(0);
  });

  it('a bot token Slack no longer accepts (invalid_auth) still disconnects', async () => {
    const { bot, connectionId, teamId } = await installed();
    slack.set({ bots: { [BOT_TOKEN]: 'installed_bot' } });
    expect((await disconnectAs(stack, bot, connectionId)).removed).toBe(true);
    expect(slack.uninstalled).not.toContain(teamId);
    expect(await connectionRows(stack, connectionId)).toBe(0);
  });

  it('Slack out of reach keeps the connection with the error, and the next try removes it', async () => {
    const { bot, connectionId, teamId } = await installed();
    await disconnectWaitsForProvider(stack, bot, connectionId, {
      outage: () => slack.set({ uninstallFailures: 1 }),
      message: SLACK_UNREACHABLE,
      registered: () => !slack.uninstalled.includes(teamId),
    });
  });

  it("a pasted token's connection calls no apps.uninstall: the owner's own app is theirs", async () => {
    const token = 'xoxb-5566778899-9988776655-PastedOwnAppTokenAbCd';
    slack.set({ bots: { [token]: 'own_app_bot' }, teams: { [token]: { id: 'T0OWNAPP', name: 'Own App Co' } } });
    const bot = await stack.newChatbot({ knowledge: ['Open every day.'] });
    const { connection } = await stack.client.connectChannel({
      ownerId: bot.ownerId,
      chatbotId: bot.id,
      uniqueId: bot.uniqueId,
      channel: 'slack',
      token,
      signingSecret: '0123456789abcdef0123456789abcdef',
      webhookBaseUrl: 'https://parley.example/api/channels/slack',
    });
    const before = uninstallCalls().length;
    expect((await disconnectAs(stack, bot, connection!.id)).removed).toBe(true);
    expect(uninstallCalls()).toHaveLength(before);
    expect(slack.uninstalled).not.toContain('T0OWNAPP');
  });
});
