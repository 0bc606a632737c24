// Slack's Events API request as both the gateway and chat check it (docs/adr/0057-slack-channel.md,
// docs/adr/0069-slack-and-meta-checked-at-the-edge.md):
//
// - Verification: `X-Slack-Signature` is `v0=` and the hex HMAC-SHA256 of `v0:{timestamp}:{raw body}`
//   under the app's signing secret, compared in constant time over two 32-byte digests; a timestamp
//   more than five minutes from now (either way) is refused, so a captured request cannot be
//   replayed later. Anything missing or malformed is a refusal; no refusal says what was expected.
// - Events: `url_verification` (the challenge answered back), and `event_callback` carrying a
//   `message` in a direct message (`channel_type: im`) or an `app_mention`. A message with a subtype
//   (edits, joins, bot posts), a `bot_id`, or the bot's own user is taken and left: no loops.
// - Conversations: one Slack thread is one conversation, its chat id `{channel}:{thread_ts}` (a
//   mention outside a thread opens one at its own ts); a direct message outside any thread is one
//   conversation per direct-message channel, its chat id the channel alone.
// - The event's `event_id` is the provider message id: Slack's retries (X-Slack-Retry-Num) carry the
//   same one, so they are queued and answered once.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalid } from './rpc-errors.ts';

export const SIGNATURE_MISSING = 'The request signature or its timestamp is missing.';
export const SIGNATURE_REFUSED = 'The request signature is not valid, or its timestamp is too old.';

/** The oldest (and most future) request timestamp taken, in seconds from now. */
export const SLACK_MAX_SKEW_SECONDS = 5 * 60;
export const SLACK_BODY_INVALID = 'The body is not a Slack event.';
const SIGNATURE = /^v0=[0-9a-f]{64}$/;
export const SLACK_CHANNEL_ID = /^[A-Z0-9]{1,30}$/;
export const SLACK_TS = /^\d{1,12}\.\d{1,9}$/;

/** True when the signature is Slack's over this timestamp and body under the secret, and the timestamp is recent. */
export function slackSignatureValid(
  signingSecret: string,
  req: { signature: string; timestamp: string; body: Uint8Array },
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!signingSecret || !/^\d{1,12}$/.test(req.timestamp) || !SIGNATURE.test(req.signature)) return false;
  if (Math.abs(nowSeconds - Number(req.timestamp)) > SLACK_MAX_SKEW_SECONDS) return false;
  const expected = createHmac('sha256', signingSecret).update(`v0:${req.timestamp}:`).update(req.body).digest();
  const actual = Buffer.from(req.signature.slice(3), 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The workspace (team_id) an `event_callback` is from, "" when it names none: what routes an event
 * posted to the operator app's one Request URL to the connection installed in that workspace
 * (docs/adr/0075-one-request-url-for-the-operators-slack-app.md). Read only once the signature holds.
 */
export function slackTeamOf(body: Uint8Array): string {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return '';
  }
  if (!isObject(payload) || payload.type !== 'event_callback' || typeof payload.team_id !== 'string') return '';
  return SLACK_CHANNEL_ID.test(payload.team_id) ? payload.team_id : '';
}

export type SlackEvent =
  | { kind: 'challenge'; challenge: string }
  | { kind: 'ignored' }
  /** Parley's bot taken out of the workspace there (the app uninstalled, or its bot token revoked): the connection can no longer answer. */
  | { kind: 'removed' }
  | { kind: 'message'; eventId: string; chatId: string; userId: string; text: string };

/**
 * The request's meaning; a body that is no Slack request is INVALID_ARGUMENT. `teamId`: the workspace
 * the connection's token is for, when known; an event of another workspace is left. One Slack app
 * (the operator's, for "Add to Slack") signs every workspace's events with the same secret, so the
 * signature alone does not say which connection an event is for.
 */
export function parseSlackEvent(body: Uint8Array, maxText: number, teamId?: string | null): SlackEvent {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw invalid(SLACK_BODY_INVALID);
  }
  if (!isObject(payload) || typeof payload.type !== 'string') throw invalid(SLACK_BODY_INVALID);
  if (payload.type === 'url_verification') {
    if (typeof payload.challenge !== 'string' || payload.challenge.length > 200) throw invalid(SLACK_BODY_INVALID);
    return { kind: 'challenge', challenge: payload.challenge };
  }
  if (payload.type !== 'event_callback') return { kind: 'ignored' };
  if (teamId && payload.team_id !== teamId) return { kind: 'ignored' };
  const event = payload.event;
  if (typeof payload.event_id !== 'string' || !/^[A-Za-z0-9]{1,64}$/.test(payload.event_id) || !isObject(event))
    throw invalid(SLACK_BODY_INVALID);
  if (event.type === 'app_uninstalled') return { kind: 'removed' };
  if (event.type === 'tokens_revoked') {
    const bot = isObject(event.tokens) ? event.tokens.bot : undefined;
    return Array.isArray(bot) && bot.length > 0 ? { kind: 'removed' } : { kind: 'ignored' };
  }
  const direct = event.type === 'message' && event.channel_type === 'im';
  if (!direct && event.type !== 'app_mention') return { kind: 'ignored' };
  // Bots' posts (Parley's own answers among them), edits, joins: taken and left.
  if (event.subtype !== undefined || event.bot_id !== undefined || isObject(event.bot_profile)) return { kind: 'ignored' };
  const botUsers = Array.isArray(payload.authorizations) ? payload.authorizations.filter(isObject).map((a) => a.user_id) : [];
  if (typeof event.user !== 'string' || botUsers.includes(event.user)) return { kind: 'ignored' };
  if (
    typeof event.channel !== 'string' ||
    !SLACK_CHANNEL_ID.test(event.channel) ||
    typeof event.ts !== 'string' ||
    !SLACK_TS.test(event.ts)
  )
    throw invalid(SLACK_BODY_INVALID);
  const threadTs = typeof event.thread_ts === 'string' && SLACK_TS.test(event.thread_ts) ? event.thread_ts : '';
  const thread = threadTs || (direct ? '' : event.ts);
  // A mention's text starts with the bot's <@U…>: what was asked is the rest.
  const text = (typeof event.text === 'string' ? event.text : '').replace(/<@[A-Z0-9]+>/g, ' ').trim();
  if (!text) return { kind: 'ignored' };
  return {
    kind: 'message',
    eventId: payload.event_id,
    chatId: thread ? `${event.channel}:${thread}` : event.channel,
    userId: event.user.slice(0, 64),
    text: text.slice(0, maxText),
  };
}
