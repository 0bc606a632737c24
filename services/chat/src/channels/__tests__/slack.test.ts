// Slack's rules without a stack: the v0 signature and its time window, the events answered and left,
// where an answer goes, the mrkdwn sources, and the Web API client's reading of Slack's answers
// (against the fake Slack over HTTP).
import { signSlack, slackEvent, startFakeSlack } from '@parley/common/testing/fake-slack.ts';
import { describe, expect, it } from 'vitest';
import { SlackError, slackApi } from '../slack-api.ts';
import { parseSlackEvent, slackDestination, slackSignatureValid, withSlackSourcesFooter } from '../slack.ts';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const NOW = 1_764_680_000;
const body = (payload: unknown) => Buffer.from(JSON.stringify(payload));

describe('slackSignatureValid', () => {
  const raw = '{"type":"event_callback"}';
  const ts = String(NOW);
  const good = signSlack(SECRET, ts, raw);
  const check = (signature: string, timestamp = ts, b = raw, now = NOW) =>
    slackSignatureValid(SECRET, { signature, timestamp, body: Buffer.from(b) }, now);

  it("takes Slack's signature within five minutes either way, and nothing else", () => {
    expect(check(good)).toBe(true);
    expect(check(good, ts, raw, NOW + 300)).toBe(true);
    expect(check(good, ts, raw, NOW + 301)).toBe(false);
    expect(check(good, ts, raw, NOW - 301)).toBe(false);
    expect(check(good.slice(0, -2))).toBe(false);
    expect(check(good.toUpperCase())).toBe(false);
    expect(check(`v1=${good.slice(3)}`)).toBe(false);
    expect(check(good, String(NOW + 1))).toBe(false);
    expect(check(good, ts, `${raw} `)).toBe(false);
    expect(check(good, `${ts}.5`)).toBe(false);
    expect(check('')).toBe(false);
    expect(slackSignatureValid('', { signature: good, timestamp: ts, body: Buffer.from(raw) }, NOW)).toBe(false);
  });
});

describe('parseSlackEvent', () => {
  it('reads a direct message as its DM channel, a mention as its thread, without the bot mention', () => {
    const dm = parseSlackEvent(body(slackEvent({ channel: 'D01', text: 'hello', eventId: 'Ev1' })), 100);
    expect(dm).toEqual({ kind: 'message', eventId: 'Ev1', chatId: 'D01', userId: 'U0ADA', text: 'hello' });
    const mention = parseSlackEvent(body(slackEvent({ channel: 'C01', text: 'open?', type: 'mention', ts: '1.000002' })), 100);
    expect(mention).toMatchObject({ chatId: 'C01:1.000002', text: 'open?' });
    const reply = parseSlackEvent(
      body(slackEvent({ channel: 'C01', text: 'and?', type: 'mention', ts: '2.1', threadTs: '1.000002' })),
      100,
    );
    expect(reply).toMatchObject({ chatId: 'C01:1.000002' });
    const dmThread = parseSlackEvent(body(slackEvent({ channel: 'D01', text: 'x', threadTs: '3.3' })), 100);
    expect(dmThread).toMatchObject({ chatId: 'D01:3.3' });
    expect(parseSlackEvent(body(slackEvent({ channel: 'D01', text: 'abcdef' })), 3)).toMatchObject({ text: 'abc' });
  });

  it("answers the challenge, leaves bots, edits, other events, empty mentions and other workspaces' events, and refuses what is no Slack request", () => {
    expect(parseSlackEvent(body({ type: 'url_verification', challenge: 'c' }), 10)).toEqual({ kind: 'challenge', challenge: 'c' });
    for (const extra of [{ bot_id: 'B1' }, { subtype: 'bot_message' }, { bot_profile: { id: 'B1' } }]) {
      expect(parseSlackEvent(body(slackEvent({ channel: 'D01', text: 'x', extra })), 10)).toEqual({ kind: 'ignored' });
    }
    expect(parseSlackEvent(body(slackEvent({ channel: 'D01', text: 'x', user: 'U0BOT' })), 10)).toEqual({ kind: 'ignored' });
    expect(parseSlackEvent(body(slackEvent({ channel: 'C01', text: '', type: 'mention' })), 10)).toEqual({ kind: 'ignored' });
    expect(parseSlackEvent(body({ type: 'app_rate_limited' }), 10)).toEqual({ kind: 'ignored' });
    for (const bad of ['{', '[]', '{"type":1}', '{"type":"event_callback","event_id":"../x","event":{}}']) {
      expect(() => parseSlackEvent(Buffer.from(bad), 10)).toThrow('The body is not a Slack event.');
    }
    // Another workspace's event, under the connection's workspace; a connection made before its workspace was kept reads any.
    const other = { ...slackEvent({ channel: 'D01', text: 'x' }), team_id: 'T0ANOTHER' };
    expect(parseSlackEvent(body(other), 10, 'T0PARLEY')).toEqual({ kind: 'ignored' });
    expect(parseSlackEvent(body(slackEvent({ channel: 'D01', text: 'x' })), 10, 'T0PARLEY')).toMatchObject({ kind: 'message' });
    expect(parseSlackEvent(body(other), 10, null)).toMatchObject({ kind: 'message' });
    const badChannel = slackEvent({ channel: 'D01', text: 'x' });
    badChannel.event.channel = 'https://evil';
    expect(() => parseSlackEvent(body(badChannel), 10)).toThrow('The body is not a Slack event.');
  });

  it("reads the app uninstalled or its bot token revoked in the connection's workspace as removed; a user's token alone, or another workspace's, is left", () => {
    const removal = (event: Record<string, unknown>, teamId = 'T0PARLEY') => ({
      ...slackEvent({ channel: 'D01', text: 'x' }),
      team_id: teamId,
      event,
    });
    expect(parseSlackEvent(body(removal({ type: 'app_uninstalled' })), 10, 'T0PARLEY')).toEqual({ kind: 'removed' });
    expect(parseSlackEvent(body(removal({ type: 'tokens_revoked', tokens: { bot: ['U0BOT'] } })), 10, 'T0PARLEY')).toEqual({
      kind: 'removed',
    });
    expect(parseSlackEvent(body(removal({ type: 'tokens_revoked', tokens: { oauth: ['U0A'], bot: [] } })), 10, 'T0PARLEY')).toEqual({
      kind: 'ignored',
    });
    expect(parseSlackEvent(body(removal({ type: 'tokens_revoked', tokens: 'all' })), 10, 'T0PARLEY')).toEqual({ kind: 'ignored' });
    expect(parseSlackEvent(body(removal({ type: 'app_uninstalled' }, 'T0ANOTHER')), 10, 'T0PARLEY')).toEqual({ kind: 'ignored' });
  });
});

describe('where an answer goes and how it reads', () => {
  it('splits a chat id into the channel and its thread, and refuses anything else', () => {
    expect(slackDestination('D01')).toEqual({ channel: 'D01', threadTs: '' });
    expect(slackDestination('C01:1764680000.000100')).toEqual({ channel: 'C01', threadTs: '1764680000.000100' });
    expect(() => slackDestination('https://x')).toThrow();
    expect(() => slackDestination('C01:abc')).toThrow();
  });

  it('escapes the text for mrkdwn and links the sources as <url|title>', () => {
    const text = withSlackSourcesFooter('Open <b> & free', [
      { entryId: '1', title: 'Hours | Museum', url: 'https://museum.example/hours' },
      { entryId: '2', title: 'Notes', url: '' },
    ] as never);
    expect(text).toBe('Open &lt;b&gt; &amp; free\n\nSources:\n1. <https://museum.example/hours|Hours   Museum>\n2. Notes');
    expect(withSlackSourcesFooter('plain', [])).toBe('plain');
  });
});

describe('slackApi', () => {
  it("reads Slack's answers: the bot's name, a 429's Retry-After, a 5xx, a refused token", async () => {
    const token = 'xoxb-1-2-UnitTestTokenABCDEFG';
    const fake = await startFakeSlack({ bots: { [token]: 'unit_bot' } });
    try {
      const api = slackApi({ baseUrl: fake.url, timeoutMs: 5000 });
      expect(await api.authTest(token)).toEqual({ botName: 'unit_bot', team: 'Parley Test', teamId: 'T0PARLEY' });
      fake.set({ rateLimited: { times: 1, retryAfter: 7 }, failures: 1 });
      const limited = await api.postMessage(token, 'D01', 'hi', '').catch((e: SlackError) => e);
      expect([limited instanceof SlackError, (limited as SlackError).status, (limited as SlackError).retryAfterSeconds]).toEqual([
        true,
        429,
        7,
      ]);
      const down = (await api.postMessage(token, 'D01', 'hi', '').catch((e: SlackError) => e)) as SlackError;
      expect([down.status, down.retryable]).toEqual([503, true]);
      await api.postMessage(token, 'C01', 'in thread', '1.2');
      expect(fake.sent).toEqual([expect.objectContaining({ channel: 'C01', text: 'in thread', thread_ts: '1.2', token })]);
      const refused = (await api.postMessage('xoxb-9-9-UnknownTokenXXXXXXX', 'D01', 'hi', '').catch((e: SlackError) => e)) as SlackError;
      expect([refused.status, refused.message, refused.retryable]).toEqual([401, 'invalid_auth', false]);
      const malformed = (await api.authTest('not-a-token').catch((e: SlackError) => e)) as SlackError;
      expect(malformed.status).toBe(401);
      expect(fake.calls.filter((c) => c.token === 'not-a-token')).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
