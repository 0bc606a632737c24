// An update a provider posted to Parley's public webhook (docs/adr/0044-messaging-channels.md),
// handed over by the gateway with its raw body and its authenticating header. Verification fails
// closed: no connection, no stored secret or no header is a refusal; the header's SHA-256 is
// compared with the stored hash in constant time (equal lengths whatever was sent), and no refusal
// says what was expected. Only then is the body read: Telegram's JSON, a text message of a chat, the
// rest (edits, stickers, members joining) taken and left. The message is queued for the channel
// worker under the provider's message id, so a retried update is queued once; nothing is written to
// the database here, and a known connection is not even read (its verifier is kept in process), so
// the webhook answers within a few milliseconds.
import { create } from '@bufbuild/protobuf';
import { ChannelMessageReceivedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import type { Producer } from '@parley/common/queues.ts';
import { forbidden, invalid, unauthenticated } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { channelInbound, channelVerificationFailures } from './channel-metrics.ts';
import { isConnectionId, openAppSecret, openSigningSecret, openToken, parseChannel } from './connections.ts';
import {
  MAX_QUEUED_TEXT,
  parseTelegramUpdate,
  SECRET_MISSING,
  SECRET_REFUSED,
  secretMatches,
  type Verifier,
  type VerifierCache,
} from '@parley/common/channel-webhook.ts';

// Telegram's update rules and the verifier cache are shared with the gateway, which checks Telegram's webhook by itself (ADR 64).
export {
  BODY_INVALID,
  MAX_QUEUED_TEXT,
  SECRET_MISSING,
  SECRET_REFUSED,
  parseTelegramUpdate,
  secretMatches,
  verifierCache,
  type TelegramMessage,
  type Verifier,
  type VerifierCache,
} from '@parley/common/channel-webhook.ts';
import type { ProviderKeyCiphers } from '../provider-keys/provider-keys.ts';
import { parseSlackEvent, SLACK_REMOVED, slackSignatureValid } from './slack.ts';
import type { EmailInboundDeps } from './email.ts';

import { SIGNATURE_MISSING, SIGNATURE_REFUSED } from '@parley/common/channel-webhook-slack.ts';

export { SIGNATURE_MISSING, SIGNATURE_REFUSED };

export interface ReceiveDeps {
  db: PrismaClient;
  inbound: Producer<typeof ChannelMessageReceivedSchema>;
  /** What verification reads of a connection, kept in process (verifiers.ts); absent: read each time. */
  verifiers?: VerifierCache;
  /** Opens a Slack connection's signing secret and a Meta connection's app secret, which their webhooks' signatures are checked under. */
  ciphers: ProviderKeyCiphers;
  /** Email (docs/adr/0063-email-channel.md): the webhook's spent tokens and the inbound domain; absent, email's webhook is refused. */
  email?: EmailInboundDeps;
}

export async function verifierOf(deps: ReceiveDeps, connectionId: string): Promise<Verifier | null> {
  if (!isConnectionId(connectionId)) return null;
  const kept = deps.verifiers?.get(connectionId);
  if (kept) return kept;
  const found = await deps.db.channelConnection.findUnique({
    where: { id: connectionId },
    select: {
      id: true,
      channel: true,
      secretHash: true,
      signingSecretCiphertext: true,
      appSecretCiphertext: true,
      accountId: true,
      tokenCiphertext: true,
    },
  });
  if (!found) return null;
  const row: Verifier = { id: found.id, channel: found.channel, secretHash: found.secretHash };
  if (found.signingSecretCiphertext) row.signingSecret = openSigningSecret(deps.ciphers, found.id, found.signingSecretCiphertext);
  // Email: the inbound address (a mail from it is the bot's own, never answered); Slack: the workspace's id (another's events are left).
  if (found.channel === 'email' || found.channel === 'slack') row.accountId = found.accountId;
  // SMS: Twilio signs every request with the Auth Token, the token the connection calls Twilio with.
  if (found.channel === 'sms') Object.assign(row, { signingSecret: openToken(deps.ciphers, found), accountId: found.accountId });
  if (found.appSecretCiphertext) Object.assign(row, { appSecret: openAppSecret(deps.ciphers, found), accountId: found.accountId });
  deps.verifiers?.set(row);
  return row;
}

/** The channels whose webhook the gateway checks by itself; email's check keeps its spent tokens in chat. */
const GATEWAY_CHECKED = new Set(['telegram', 'slack', 'whatsapp', 'messenger', 'instagram']);

/**
 * What the gateway checks a webhook call against by itself (docs/adr/0064-channels-for-operators.md,
 * docs/adr/0069-slack-and-meta-checked-at-the-edge.md), from the same kept verifiers: Telegram's
 * secret hash; Slack's signing secret; Meta's app secret, account and verify token's hash. The
 * secrets are answered to the gateway alone (this service's callers are Parley's own, ADR 12).
 */
export async function getChannelVerifier(
  deps: ReceiveDeps,
  req: { channel: string; connectionId: string },
): Promise<{ found: boolean; connectionId: string; secretHash: string; signingSecret: string; appSecret: string; accountId: string }> {
  const channel = parseChannel(req.channel);
  if (!GATEWAY_CHECKED.has(channel)) throw invalid('This channel is not verified by the gateway.');
  const none = { found: false, connectionId: '', secretHash: '', signingSecret: '', appSecret: '', accountId: '' };
  const row = await verifierOf(deps, req.connectionId);
  if (!row || row.channel !== channel) return none;
  if (channel === 'telegram') return row.secretHash ? { ...none, found: true, connectionId: row.id, secretHash: row.secretHash } : none;
  if (channel === 'slack')
    return row.signingSecret
      ? { ...none, found: true, connectionId: row.id, signingSecret: row.signingSecret, accountId: row.accountId ?? '' }
      : none;
  if (!row.appSecret) return none;
  return {
    ...none,
    found: true,
    connectionId: row.id,
    secretHash: row.secretHash,
    appSecret: row.appSecret,
    accountId: row.accountId ?? '',
  };
}

export async function receiveChannelUpdate(
  deps: ReceiveDeps,
  req: { channel: string; connectionId: string; secret: string; body: Uint8Array; timestamp?: string },
): Promise<{ queued: boolean; challenge?: string }> {
  const channel = parseChannel(req.channel);
  const refused = (err: Error) => {
    channelVerificationFailures.series({ channel }).inc();
    return err;
  };
  if (channel === 'slack') return receiveSlackEvent(deps, req, refused);

  if (!req.secret) throw refused(unauthenticated(SECRET_MISSING));
  const row = await verifierOf(deps, req.connectionId);
  // An unknown connection reads as a wrong secret: the refusal does not tell which connections exist.
  if (!row || row.channel !== channel || !row.secretHash || !secretMatches(req.secret, row.secretHash))
    throw refused(forbidden(SECRET_REFUSED));
  const message = parseTelegramUpdate(req.body);
  if (!message) return { queued: false };
  await deps.inbound.publish(
    create(ChannelMessageReceivedSchema, {
      channel,
      connectionId: row.id,
      providerMessageId: message.updateId,
      chatId: message.chatId,
      userId: message.userId,
      userName: message.userName,
      text: message.text,
    }),
    `${channel}:${row.id}:${message.updateId}`,
  );
  channelInbound.series({ channel }).inc();
  return { queued: true };
}

/**
 * A Slack Events API request (docs/adr/0057-slack-channel.md): `secret` is X-Slack-Signature,
 * `timestamp` X-Slack-Request-Timestamp. Verified before the body is read; a url_verification's
 * challenge is answered back, a message or mention queued under its event_id.
 */
async function receiveSlackEvent(
  deps: ReceiveDeps,
  req: { connectionId: string; secret: string; body: Uint8Array; timestamp?: string },
  refused: (err: Error) => Error,
): Promise<{ queued: boolean; challenge?: string }> {
  if (!req.secret || !req.timestamp) throw refused(unauthenticated(SIGNATURE_MISSING));
  const row = await verifierOf(deps, req.connectionId);
  if (
    !row ||
    row.channel !== 'slack' ||
    !row.signingSecret ||
    !slackSignatureValid(row.signingSecret, { signature: req.secret, timestamp: req.timestamp, body: req.body })
  )
    throw refused(forbidden(SIGNATURE_REFUSED));
  const event = parseSlackEvent(req.body, MAX_QUEUED_TEXT, row.accountId);
  if (event.kind === 'challenge') return { queued: false, challenge: event.challenge };
  if (event.kind === 'ignored') return { queued: false };
  if (event.kind === 'removed') {
    // The card turns failing now, not at the next answer Slack refuses; a retry writes the same.
    await deps.db.channelConnection.updateMany({ where: { id: row.id }, data: { status: 'failing', lastError: SLACK_REMOVED } });
    return { queued: false };
  }
  await deps.inbound.publish(
    create(ChannelMessageReceivedSchema, {
      channel: 'slack',
      connectionId: row.id,
      providerMessageId: event.eventId,
      chatId: event.chatId,
      userId: event.userId,
      userName: '',
      text: event.text,
    }),
    `slack:${row.id}:${event.eventId}`,
  );
  channelInbound.series({ channel: 'slack' }).inc();
  return { queued: true };
}
