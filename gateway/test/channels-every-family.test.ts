// Every messaging channel through its public webhook path, on one stack (docs/product.md, Channels;
// ADRs 44, 56, 57, 63, 69, 70): Messenger's and Instagram's paths refuse what Meta did not sign as
// WhatsApp's does (401 missing, 403 otherwise, nothing queued, no expected value told); on each
// channel the same message posted five times at once is answered once and billed once; each
// channel's answer carries its sources after the text in the channel's format and is split at the
// channel's size limit; /metrics counts each channel's messages taken in, messages sent,
// verification failures and sends that failed. Real services, PostgreSQL, Redis and BullMQ, every
// provider's local fake over HTTP, and a model, so that every answer is billed.
import { parsePrometheusText } from '@parley/common/testing/prometheus-text.ts';
import { inboundMail, postInbound, signedInbound } from '@parley/common/testing/fake-mailgun.ts';
import { messagingTextEvent, metaSignature, startFakeMeta, whatsappTextEvent, type FakeMeta } from '@parley/common/testing/fake-meta.ts';
import { signSlack, slackEvent, startFakeSlack, type FakeSlack } from '@parley/common/testing/fake-slack.ts';
import { startFakeTelegram, telegramTextUpdate, type FakeTelegram } from '@parley/common/testing/fake-telegram.ts';
import {
  inboundSmsParams,
  postSigned,
  smsSid,
  startFakeTwilio,
  twilioSignatureOf,
  type FakeTwilio,
} from '@parley/common/testing/fake-twilio.ts';
import { startFakeOpenAI, type FakeOpenAI } from '@parley/common/testing/fake-openai.ts';
import { startSmtpCatcher, type SmtpCatcher } from '@parley/common/testing/smtp-catcher.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { usageRecordCount } from './billing-fixtures.ts';
import { makePro, museumBot, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, inboundJobCount, pollUntil, type Stack, startStack, TEST_PUBLIC_URL } from './stack.ts';

const TELEGRAM_TOKEN = '334455667:AAEveryFamilyTelegramTokenForTests_wxyz';
const SLACK_TOKEN = 'xoxb-4455667788-8877665544-EveryFamilySlackTokenQrSt';
const SLACK_SIGNING_SECRET = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const PHONE_ID = '106540352242944';
const PAGE_ID = '201234567890144';
const IG_ID = '17841400000000144';
const META_TOKENS = {
  whatsapp: 'EAAGeveryFamilyWhatsAppSystemUserTokenWhAt',
  messenger: 'EAAGeveryFamilyMessengerPageTokenForTestsMsgr',
  instagram: 'EAAGeveryFamilyInstagramTokenForTestsInstaGram',
};
const APP_SECRETS = {
  whatsapp: '0a1b2c3d4e5f60718293a4b5c6d7e8f9',
  messenger: '1b2c3d4e5f60718293a4b5c6d7e8f90a',
  instagram: '2c3d4e5f60718293a4b5c6d7e8f90a1b',
};
const META_ACCOUNTS = { whatsapp: PHONE_ID, messenger: PAGE_ID, instagram: IG_ID };
const TWILIO_SID = 'AC00112233445566778899aabbccddeeff';
const TWILIO_TOKEN = '00112233445566778899aabbccdd9876';
const TWILIO_NUMBER = '+15550100300';
const MAILGUN_KEY = 'key-0every0family0mailgun0key00wxyz';
const META_REFUSED = { message: 'The signature does not match.' };
const ANSWER = 'The museum opens at ten and closes at six. [1]';

/** Each provider's own limit on one message's text (Slack's is Parley's choice, ADR 57); email has none that an answer reaches. */
const SIZE_LIMITS = { telegram: 4096, slack: 3000, whatsapp: 4096, messenger: 2000, instagram: 1000, sms: 1600 } as const;

type ChannelName = 'telegram' | 'slack' | 'whatsapp' | 'messenger' | 'instagram' | 'sms' | 'email';
const CHANNELS: ChannelName[] = ['telegram', 'slack', 'whatsapp', 'messenger', 'instagram', 'sms', 'email'];
type MetaName = 'whatsapp' | 'messenger' | 'instagram';

let stack: Stack;
let telegram: FakeTelegram;
let slack: FakeSlack;
let meta: FakeMeta;
let twilio: FakeTwilio;
let smtp: SmtpCatcher;
let model: FakeOpenAI;
let owner: Owner;
let chatbotId: string;
/** Each channel's connection id (and email's inbound address). */
const connections = {} as Record<ChannelName, string>;
let inboundAddress: string;
let telegramSecret: string;

const metaAccounts = () => ({
  [PHONE_ID]: { token: META_TOKENS.whatsapp, name: '+1 555-078-3944' },
  [PAGE_ID]: { token: META_TOKENS.messenger, name: 'City Museum' },
  [IG_ID]: { token: META_TOKENS.instagram, name: 'citymuseum' },
});
const twilioAccounts = () => ({ [TWILIO_SID]: { authToken: TWILIO_TOKEN, numbers: [TWILIO_NUMBER] } });

beforeAll(async () => {
  [telegram, slack, meta, twilio, smtp, model] = await Promise.all([
    startFakeTelegram({ bots: { [TELEGRAM_TOKEN]: 'family_bot' } }),
    startFakeSlack({ bots: { [SLACK_TOKEN]: 'family_bot' } }),
    startFakeMeta({ accounts: metaAccounts() }),
    startFakeTwilio({ accounts: twilioAccounts() }),
    startSmtpCatcher(),
    startFakeOpenAI({ reply: ANSWER }),
  ]);
  stack = await startStack({
    chatEnv: {
      TELEGRAM_API_BASE: telegram.url,
      SLACK_API_BASE: slack.url,
      META_GRAPH_API_BASE: meta.url,
      TWILIO_API_BASE: twilio.url,
      EMAIL_SMTP_URL: smtp.url,
      EMAIL_INBOUND_DOMAIN: 'mail.family.test',
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: model.url,
      // A refused send is final at once, so the failed-send count needs no waiting.
      CHANNEL_SEND_ATTEMPTS: '1',
    },
  });
  owner = await registerOwner(stack, 'every-family');
  await makePro(stack, owner);
  chatbotId = await museumBot(stack, owner);
  const connect = async (channel: ChannelName, vars: { t: string; s?: string; as?: string; a?: string; b?: string; p?: string }) => {
    const res = await gql(
      stack.url,
      `mutation($c: ID!, $ch: String!, $t: String!, $s: String, $as: String, $a: String, $b: String, $p: String) {
        connectChannel(chatbotId: $c, channel: $ch, token: $t, signingSecret: $s, appSecret: $as, accountId: $a, businessAccountId: $b, phoneNumber: $p) {
          id accountId } }`,
      { c: chatbotId, ch: channel, ...vars },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    return res.body.data.connectChannel as { id: string; accountId: string };
  };
  connections.telegram = (await connect('telegram', { t: TELEGRAM_TOKEN })).id;
  telegramSecret = telegram.webhooks.get(TELEGRAM_TOKEN)!.secretToken;
  connections.slack = (await connect('slack', { t: SLACK_TOKEN, s: SLACK_SIGNING_SECRET })).id;
  for (const channel of ['whatsapp', 'messenger', 'instagram'] as const) {
    const business = channel === 'whatsapp' ? { b: '102290129340444' } : {};
    connections[channel] = (
      await connect(channel, { t: META_TOKENS[channel], as: APP_SECRETS[channel], a: META_ACCOUNTS[channel], ...business })
    ).id;
  }
  connections.sms = (await connect('sms', { t: TWILIO_TOKEN, a: TWILIO_SID, p: TWILIO_NUMBER })).id;
  const email = await connect('email', { t: '', s: MAILGUN_KEY });
  connections.email = email.id;
  inboundAddress = email.accountId;
}, 180_000);
afterAll(async () => {
  await stack?.close();
  await Promise.all([telegram?.close(), slack?.close(), meta?.close(), twilio?.close(), smtp?.close(), model?.close()]);
});
beforeEach(() => {
  model.reset();
  model.setBehaviour({ reply: ANSWER });
});

const settle = () => new Promise((r) => setTimeout(r, 500));

let seq = 0;
/** A new channel user's id on `channel`, as the provider writes it. */
function newUser(channel: ChannelName): string {
  seq++;
  if (channel === 'telegram') return String(710_000 + seq);
  if (channel === 'slack') return `D0FAM${seq}`;
  if (channel === 'sms') return `+4477009003${String(seq).padStart(2, '0')}`;
  if (channel === 'email') return `visitor${seq}.${Date.now()}@example.com`;
  return `1555123${String(4000 + seq)}`;
}

/** What one message from `user` looks like at the channel's public path: each call gives a delivery of the same message. */
function message(channel: ChannelName, user: string, text: string): () => Promise<{ status: number }> {
  const path = `/api/channels/${channel}/${connections[channel]}`;
  const url = `${stack.url}${path}`;
  const json = (body: string, headers: Record<string, string>) => () =>
    api(stack.url, path, { method: 'POST', rawBody: body, headers: { 'content-type': 'application/json', ...headers } });
  if (channel === 'telegram') {
    const body = JSON.stringify(telegramTextUpdate(Number(user), text));
    return json(body, { 'x-telegram-bot-api-secret-token': telegramSecret });
  }
  if (channel === 'slack') {
    const body = JSON.stringify(slackEvent({ channel: user, text }));
    return () => {
      const ts = String(Math.floor(Date.now() / 1000));
      return json(body, { 'x-slack-request-timestamp': ts, 'x-slack-signature': signSlack(SLACK_SIGNING_SECRET, ts, body) })();
    };
  }
  if (channel === 'sms') {
    const params = inboundSmsParams({
      accountSid: TWILIO_SID,
      authToken: TWILIO_TOKEN,
      from: user,
      to: TWILIO_NUMBER,
      body: text,
      messageSid: smsSid(),
    });
    // Twilio signs the public URL it was given; this test reaches the same gateway at its own address.
    const signature = twilioSignatureOf(TWILIO_TOKEN, `${TEST_PUBLIC_URL}${path}`, params);
    return () => postSigned(url, TWILIO_TOKEN, params, { signature });
  }
  if (channel === 'email') {
    const fields = inboundMail({ from: user, to: inboundAddress, subject: 'Hours', text });
    // Mailgun signs every forward anew (its own token), so each delivery of the one mail is signed apart.
    return () => postInbound(url, signedInbound(MAILGUN_KEY, fields));
  }
  const event =
    channel === 'whatsapp'
      ? whatsappTextEvent(PHONE_ID, user, text)
      : messagingTextEvent(channel === 'messenger' ? 'page' : 'instagram', META_ACCOUNTS[channel], user, text);
  const body = JSON.stringify(event);
  return json(body, { 'x-hub-signature-256': metaSignature(APP_SECRETS[channel], body) });
}

/** The texts the bot sent to `user` on `channel`, through the provider's fake, oldest first. */
function sentTo(channel: ChannelName, user: string): string[] {
  if (channel === 'telegram') return telegram.sent.filter((m) => m.chat_id === user).map((m) => m.text);
  if (channel === 'slack') return slack.sent.filter((m) => m.channel === user).map((m) => m.text);
  if (channel === 'sms') return twilio.sent.filter((m) => m.to === user).map((m) => m.body);
  if (channel === 'email') return smtp.mails.filter((m) => m.to.includes(user)).map((m) => m.text.trimEnd());
  return meta.sent.filter((m) => m.to === user && m.accountId === META_ACCOUNTS[channel]).map((m) => m.text);
}

describe("Messenger's and Instagram's webhooks at the gateway", () => {
  it('refuse a missing signature (401) and a wrong, truncated, re-signed or misdirected one (403), queueing nothing and telling no expected value', async () => {
    for (const channel of ['messenger', 'instagram'] as const) {
      const before = await inboundJobCount(stack);
      const path = `/api/channels/${channel}/${connections[channel]}`;
      const body = JSON.stringify(
        messagingTextEvent(channel === 'messenger' ? 'page' : 'instagram', META_ACCOUNTS[channel], '7001009999', 'Is it open every day?'),
      );
      const good = metaSignature(APP_SECRETS[channel], body);
      const post = (signature: string | undefined, raw = body, to = path) =>
        api(stack.url, to, {
          method: 'POST',
          rawBody: raw,
          headers: { 'content-type': 'application/json', ...(signature === undefined ? {} : { 'x-hub-signature-256': signature }) },
        });
      for (const res of [await post(undefined), await post('')]) {
        expect([res.status, res.body]).toEqual([401, { message: 'The X-Hub-Signature-256 header is missing.' }]);
      }
      const other: MetaName = channel === 'messenger' ? 'instagram' : 'messenger';
      const refusals = [
        await post(metaSignature('0'.repeat(32), body)),
        // Another Meta connection's app secret, and its own secret on another connection's path.
        await post(metaSignature(APP_SECRETS[other], body)),
        await post(good, body, `/api/channels/${channel}/${connections[other]}`),
        await post(good, body, `/api/channels/${other}/${connections[channel]}`),
        await post(good.slice(0, -1)),
        await post(good.slice(0, 20)),
        await post('sha256='),
        await post(good.slice('sha256='.length)),
        await post(`${good}00`),
        // The body changed after signing.
        await post(good, body.replace('every day', 'on Monday')),
        await post(good, `${body} `),
      ];
      for (const res of refusals) {
        expect([res.status, res.body]).toEqual([403, META_REFUSED]);
        expect(JSON.stringify(res.body)).not.toContain(good.slice(7, 30));
      }
      expect(await inboundJobCount(stack)).toBe(before);
    }
    expect(meta.sent).toEqual([]);
  });
});

describe('the same message delivered 5 times at once', () => {
  it.each(CHANNELS)('on %s is acknowledged each time, answered once and billed once', async (channel) => {
    const user = newUser(channel);
    const deliver = message(channel, user, 'Is the museum open every day?');
    const billedBefore = await usageRecordCount(stack, owner);
    const acks = await Promise.all(Array.from({ length: 5 }, () => deliver()));
    expect(acks.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    await pollUntil(
      () => sentTo(channel, user),
      (s) => s.length >= 1,
      `the ${channel} answer`,
    );
    await pollUntil(
      () => usageRecordCount(stack, owner),
      (n) => n > billedBefore,
      `the ${channel} answer billed`,
    );
    // The provider's retry once the answer went out changes nothing either.
    expect((await deliver()).status).toBe(200);
    await settle();
    expect(sentTo(channel, user)).toHaveLength(1);
    expect(sentTo(channel, user)[0]).toContain('The museum opens at ten');
    expect(model.requests).toHaveLength(1);
    expect(await usageRecordCount(stack, owner)).toBe(billedBefore + 1);
  });

  it('is one conversation per channel user, each shown in History with its channel', async () => {
    const res = await gql(
      stack.url,
      'query($c: ID!) { conversations(chatbotId: $c) { channel messageCount } }',
      { c: chatbotId },
      owner.token,
    );
    const byChannel = new Map<string, number[]>();
    for (const c of res.body.data.conversations as { channel: string; messageCount: number }[])
      byChannel.set(c.channel, [...(byChannel.get(c.channel) ?? []), c.messageCount]);
    for (const channel of CHANNELS) expect(byChannel.get(channel)).toEqual([2]);
  });
});

describe("each channel's answer", () => {
  it.each(CHANNELS)('on %s lists its sources after the text and is split at the channel size limit', async (channel) => {
    const long = `${'Tickets & tours: the museum opens at ten and closes at six. '.repeat(90)}[1]`;
    model.setBehaviour({ reply: long });
    const user = newUser(channel);
    expect((await message(channel, user, 'Tell me everything about the opening hours.')()).status).toBe(200);
    const limit = channel === 'email' ? null : SIZE_LIMITS[channel];
    const expectedParts = limit === null ? 1 : Math.ceil([...long].length / limit);
    const parts = await pollUntil(
      () => sentTo(channel, user),
      (s) => s.length >= expectedParts,
      `the ${channel} parts`,
    );
    await settle();
    const sent = sentTo(channel, user);
    if (limit === null) expect(sent).toHaveLength(1);
    else {
      expect(sent.length).toBeGreaterThan(1);
      for (const part of sent) expect([...part].length).toBeLessThanOrEqual(limit);
    }
    expect(parts.length).toBeGreaterThanOrEqual(expectedParts);
    const whole = sent.join('\n');
    // The [1] marker becomes a numbered source after the text.
    expect(whole).not.toMatch(/\[\d\]/);
    expect(sent.at(-1)).toMatch(/\n\nSources:\n1\. \S/);
    // Slack's text is mrkdwn, so its ampersand is escaped; every other channel's text is plain.
    expect(whole).toContain(channel === 'slack' ? 'Tickets &amp; tours' : 'Tickets & tours');
  });
});

/** Chat's /metrics (the gateway's counters too: the test's services share one process), each channel's four counts. */
async function channelCounts(): Promise<Record<ChannelName, Record<'inbound' | 'outbound' | 'refused' | 'failed', number>>> {
  const families = parsePrometheusText(await (await fetch(`${stack.chatUrl}/metrics`)).text());
  const value = (name: string, channel: string) => families.get(name)?.samples.find((s) => s.labels.channel === channel)?.value ?? 0;
  return Object.fromEntries(
    CHANNELS.map((c) => [
      c,
      {
        inbound: value('parley_channel_inbound_total', c),
        outbound: value('parley_channel_outbound_total', c),
        refused: value('parley_channel_verification_failures_total', c),
        failed: value('parley_channel_send_failures_total', c),
      },
    ]),
  ) as never;
}

/** A call to the channel's path that its verification refuses (a signature, secret or token that is not the provider's). */
function forged(channel: ChannelName) {
  const path = `/api/channels/${channel}/${connections[channel]}`;
  if (channel === 'sms')
    return postSigned(
      `${stack.url}${path}`,
      TWILIO_TOKEN,
      inboundSmsParams({ accountSid: TWILIO_SID, authToken: TWILIO_TOKEN, from: '+447700900999', to: TWILIO_NUMBER, body: 'hi' }),
      {
        signature: 'bm90IGEgc2lnbmF0dXJl',
      },
    );
  if (channel === 'email')
    return postInbound(
      `${stack.url}${path}`,
      signedInbound('key-0not0the0owners0signing0key00000', inboundMail({ from: 'x@example.com', to: inboundAddress, text: 'hi' })),
    );
  const headers: Record<string, string> =
    channel === 'telegram'
      ? { 'x-telegram-bot-api-secret-token': 'not-the-secret' }
      : channel === 'slack'
        ? { 'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)), 'x-slack-signature': `v0=${'0'.repeat(64)}` }
        : { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` };
  return api(stack.url, path, { method: 'POST', rawBody: '{}', headers: { 'content-type': 'application/json', ...headers } });
}

describe('/metrics', () => {
  it('counts, per channel, a message taken in and its answer sent, a refused webhook call, and a send that failed', async () => {
    for (const channel of CHANNELS) {
      const before = (await channelCounts())[channel];
      expect([401, 403]).toContain((await forged(channel)).status);
      const user = newUser(channel);
      expect((await message(channel, user, 'Is the museum open every day?')()).status).toBe(200);
      await pollUntil(
        () => sentTo(channel, user),
        (s) => s.length === 1,
        `the ${channel} answer`,
      );
      const after = await pollUntil(
        async () => (await channelCounts())[channel],
        (c) => c.outbound > before.outbound,
        `the ${channel} answer counted`,
      );
      expect(after).toEqual({
        inbound: before.inbound + 1,
        outbound: before.outbound + 1,
        refused: before.refused + 1,
        failed: before.failed,
      });
    }

    // The providers stop accepting the owner's credentials: each test message fails, and is counted as a failed send.
    telegram.set({ bots: {} });
    slack.set({ bots: {} });
    meta.set({ accounts: {} });
    twilio.set({ accounts: {} });
    try {
      for (const channel of CHANNELS.filter((c) => c !== 'email')) {
        const before = (await channelCounts())[channel];
        const res = await gql(
          stack.url,
          'mutation($id: ID!) { sendChannelTestMessage(connectionId: $id) { status } }',
          { id: connections[channel] },
          owner.token,
        );
        expect(res.body.data.sendChannelTestMessage.status).toBe('failed');
        expect((await channelCounts())[channel]).toEqual({ ...before, failed: before.failed + 1 });
      }
    } finally {
      telegram.set({ bots: { [TELEGRAM_TOKEN]: 'family_bot' } });
      slack.set({ bots: { [SLACK_TOKEN]: 'family_bot' } });
      meta.set({ accounts: metaAccounts() });
      twilio.set({ accounts: twilioAccounts() });
    }
  });
});
