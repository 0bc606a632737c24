// A chatbot's messaging channel connections (docs/adr/0044-messaging-channels.md). Connecting
// Telegram checks the owner's BotFather token with getMe, stores it sealed (AES-256-GCM under
// PROVIDER_KEY_ENCRYPTION_KEY, the connection's id bound in as associated data) with its last four
// characters, and registers Parley's webhook with setWebhook and a random secret_token, of which only
// a SHA-256 hash is kept (the webhook's check needs nothing more). The token is never answered,
// logged or put in a URL of Parley's; the webhook's path names the connection. Disconnecting removes
// the registration at the provider, whichever channel it is (registrations.ts: deleteWebhook for
// Telegram), then the row (its credentials, inbound marks, threads and deliveries).
import { randomBytes, randomUUID } from 'node:crypto';
import { isUuid } from '@parley/common/ids.ts';
import { secretHashOf } from '@parley/common/channel-webhook.ts';
import { alreadyExists, failedPrecondition, invalid, notFound } from '@parley/common/rpc-errors.ts';
import { open, seal } from '@parley/common/sealed-secret.ts';
import type { ChannelConnection, PrismaClient } from '../generated/prisma/client.ts';
import type { ProviderKeyCiphers } from '../provider-keys/provider-keys.ts';
import { deliver, deliveryView, type DeliverDeps, type DeliveryView, type SendingConnection } from './deliver.ts';
import { TelegramError, TELEGRAM_TOKEN_SHAPE, type TelegramApi } from './telegram-api.ts';
import { SlackError, SLACK_SIGNING_SECRET_SHAPE, SLACK_TOKEN_SHAPE, type SlackApi } from './slack-api.ts';
import { slackDestination } from './slack.ts';
import { addressOf, emailAddressValid } from './email.ts';

import type { MetaApi } from './meta-api.ts';
import type { TwilioApi } from './twilio-api.ts';
import type { SlackApp } from './slack-install.ts';
import { providerUnreachable, removeRegistration, UNREACHABLE } from './registrations.ts';
import { E164_SHAPE, SMS_RECIPIENT_INVALID } from './sms.ts';
import { META_CHANNELS, META_RECIPIENT_INVALID, isMetaChannel, metaRecipientValid } from './meta-channels.ts';

export const CHANNELS = ['telegram', 'slack', ...META_CHANNELS, 'email', 'sms'] as const;
export type ChannelName = (typeof CHANNELS)[number];

export const TOKEN_SHAPE_INVALID = 'The bot token must look like 123456789:AAF… as BotFather gives it.';
export const TOKEN_REFUSED = 'Telegram refused this bot token.';
export const PROVIDER_UNREACHABLE = UNREACHABLE.telegram;
export const ALREADY_CONNECTED = 'This chatbot is already connected to Telegram. Disconnect it first.';
export const CONNECTION_NOT_FOUND = 'Channel connection not found';
export const NO_CHAT_YET = 'Nobody has written to the bot yet: give a chat id to send the test message to.';
export const CHAT_ID_INVALID = 'The chat id must be a Telegram chat id (a number).';
export const TEST_MESSAGE = 'This is a test message from Parley: your chatbot is connected to Telegram.';
export const SLACK_TOKEN_SHAPE_INVALID = 'The bot token must be the Bot User OAuth Token Slack shows (xoxb-…).';
export const SLACK_SECRET_SHAPE_INVALID = "The signing secret must be the app's Signing Secret from Slack's Basic Information page.";
export const SLACK_TOKEN_REFUSED = 'Slack refused this bot token.';
export const SLACK_UNREACHABLE = UNREACHABLE.slack;
export const SLACK_ALREADY_CONNECTED = 'This chatbot is already connected to Slack. Disconnect it first.';
export const SLACK_NO_CHAT_YET = 'Nobody has written to the bot yet: give a Slack channel id to send the test message to.';
export const SLACK_TEST_MESSAGE = 'This is a test message from Parley: your chatbot is connected to Slack.';

export const EMAIL_NO_CONTACT_YET = 'Nobody has written to the inbound address yet: give an email address to send the test message to.';
export const EMAIL_ADDRESS_INVALID = 'The address must be an email address (name@example.com).';
export const EMAIL_TEST_MESSAGE = 'This is a test message from Parley: your chatbot is connected to email.';
export const SMS_TEST_MESSAGE = 'This is a test message from Parley: your chatbot is connected to SMS.';

export interface ChannelConnectionView {
  id: string;
  chatbotId: string;
  channel: ChannelName;
  status: 'connected' | 'failing';
  lastError: string;
  tokenLastFour: string;
  botName: string;
  lastChatId: string;
  createdAt: Date;
  /** Meta's channels: the webhook's verify token, answered once by connectChannel (empty elsewhere). */
  verifyToken: string;
  /** Meta's channels: the phone-number, page or Instagram account id. */
  accountId: string;
  /** Slack: connected through the operator's app, whose one Request URL receives its events. */
  slackAppInstall: boolean;
}

export interface ConnectionDeps {
  db: PrismaClient;
  ciphers: ProviderKeyCiphers;
  telegram: TelegramApi;
  slack: SlackApi;
  meta: MetaApi;
  twilio: TwilioApi;
  deliver: DeliverDeps;
  /** Email: EMAIL_INBOUND_DOMAIN, the inbound addresses' domain (docs/adr/0063-email-channel.md). */
  emailDomain?: string;
  /** The webhook's kept verifiers: a removed connection is forgotten at once in this process. */
  verifiers?: { forget(id: string): void };
  /** The operator's Slack app: a connection added to Slack is uninstalled with it when it goes. */
  slackApp?: SlackApp | null;
}

export const parseChannel = (raw: string): ChannelName => {
  if (!(CHANNELS as readonly string[]).includes(raw)) throw invalid(`channel must be one of ${CHANNELS.join(', ')}.`);
  return raw as ChannelName;
};

export const isConnectionId = (raw: string) => isUuid(raw);
const TELEGRAM_CHAT_ID = /^-?\d{1,20}$/;

const associatedData = (connectionId: string) => `channel:${connectionId}`;
const signingSecretData = (connectionId: string) => `channel-signing-secret:${connectionId}`;
/** The app secret's associated data: its own, so a token's ciphertext cannot be read as the secret. */
const appSecretData = (connectionId: string) => `channel-app-secret:${connectionId}`;

/** A value sealed for the connection: under the current operator key, else the previous one. */
function openSealed(ciphers: ProviderKeyCiphers, ciphertext: string, data: string): string {
  try {
    return open(ciphers.current, ciphertext, data);
  } catch (err) {
    if (!ciphers.previous) throw err;
    return open(ciphers.previous, ciphertext, data);
  }
}

export const sealToken = (ciphers: ProviderKeyCiphers, connectionId: string, token: string) =>
  seal(ciphers.current, token, associatedData(connectionId));
export const sealSigningSecret = (ciphers: ProviderKeyCiphers, connectionId: string, secret: string) =>
  seal(ciphers.current, secret, signingSecretData(connectionId));
export const sealAppSecret = (ciphers: ProviderKeyCiphers, connectionId: string, secret: string) =>
  seal(ciphers.current, secret, appSecretData(connectionId));
export const openAppSecret = (ciphers: ProviderKeyCiphers, row: { id: string; appSecretCiphertext: string | null }) =>
  row.appSecretCiphertext ? openSealed(ciphers, row.appSecretCiphertext, appSecretData(row.id)) : '';

/** A Slack connection's signing secret in plain text: under the current operator key, else the previous one. */
export const openSigningSecret = (ciphers: ProviderKeyCiphers, connectionId: string, ciphertext: string): string =>
  openSealed(ciphers, ciphertext, signingSecretData(connectionId));
export { secretHashOf };

/** The token in plain text, from its row: under the current operator key, else the previous one. */
export function openToken(ciphers: ProviderKeyCiphers, row: Pick<ChannelConnection, 'id' | 'tokenCiphertext'>): string {
  return openSealed(ciphers, row.tokenCiphertext, associatedData(row.id));
}

export const sendingConnection = (ciphers: ProviderKeyCiphers, row: ChannelConnection): SendingConnection => ({
  id: row.id,
  channel: row.channel,
  status: row.status,
  token: openToken(ciphers, row),
  accountId: row.accountId ?? '',
  botName: row.botName,
  callbackUrl: row.callbackUrl ?? '',
});

export const connectionView = (r: ChannelConnection): ChannelConnectionView => ({
  id: r.id,
  chatbotId: r.chatbotId,
  channel: r.channel as ChannelName,
  status: r.status === 'failing' ? 'failing' : 'connected',
  lastError: r.lastError ?? '',
  tokenLastFour: r.tokenLastFour,
  botName: r.botName,
  lastChatId: r.lastChatId ?? '',
  createdAt: r.createdAt,
  verifyToken: '',
  accountId: r.accountId ?? '',
  slackAppInstall: r.slackAppInstall,
});

/** The provider's refusal as the owner reads it: a refused token, or the provider out of reach. */
function providerFailure(err: unknown): Error {
  if (err instanceof TelegramError && !err.retryable)
    return failedPrecondition(err.status === 401 || err.status === 404 ? TOKEN_REFUSED : `Telegram refused: ${err.message}`);
  return providerUnreachable('telegram');
}

export async function listConnections(deps: Pick<ConnectionDeps, 'db'>, ownerId: string, chatbotId: string) {
  if (!isUuid(chatbotId)) return [];
  const rows = await deps.db.channelConnection.findMany({ where: { ownerId, chatbotId }, orderBy: { createdAt: 'asc' } });
  return rows.map(connectionView);
}

export async function connectChannel(deps: ConnectionDeps, input: ConnectInput): Promise<ChannelConnectionView> {
  if (input.channel === 'slack') {
    if (!isUuid(input.chatbotId) || !input.uniqueId) throw invalid('chatbot_id and unique_id are required.');
    return connectSlack(deps, input);
  }
  const channel = checkConnectInput(input);
  const token = input.token.trim();
  if (!TELEGRAM_TOKEN_SHAPE.test(token)) throw invalid(TOKEN_SHAPE_INVALID);
  const existing = await deps.db.channelConnection.findUnique({ where: { chatbotId_channel: { chatbotId: input.chatbotId, channel } } });
  if (existing) throw alreadyExists(ALREADY_CONNECTED);
  const me = await deps.telegram.getMe(token).catch((err: unknown) => {
    throw providerFailure(err);
  });
  const id = randomUUID();
  // 256 random bits in Telegram's secret_token alphabet (A-Z, a-z, 0-9, _ and -).
  const secret = randomBytes(32).toString('base64url');
  const row = await deps.db.channelConnection
    .create({
      data: {
        id,
        ownerId: input.ownerId,
        chatbotId: input.chatbotId,
        uniqueId: input.uniqueId,
        channel,
        tokenCiphertext: seal(deps.ciphers.current, token, associatedData(id)),
        tokenLastFour: token.slice(-4),
        secretHash: secretHashOf(secret),
        botName: me.username,
      },
    })
    .catch((err: { code?: string }) => {
      if (err.code === 'P2002') throw alreadyExists(ALREADY_CONNECTED);
      throw err;
    });
  try {
    await deps.telegram.setWebhook(token, `${input.webhookBaseUrl.replace(/\/+$/, '')}/${id}`, secret);
  } catch (err) {
    await deps.db.channelConnection.delete({ where: { id } });
    throw providerFailure(err);
  }
  return connectionView(row);
}

/**
 * Slack (docs/adr/0057-slack-channel.md): the bot token checked with auth.test (nothing stored when
 * Slack refuses it), then the token and the app's signing secret sealed. Slack has no call that
 * registers the Events API's Request URL: the owner pastes the connection's webhook URL into the
 * app's Event Subscriptions, and Slack's url_verification is answered by the webhook.
 */
async function connectSlack(
  deps: ConnectionDeps,
  input: { ownerId: string; chatbotId: string; uniqueId: string; token: string; signingSecret?: string; slackAppInstall?: boolean },
): Promise<ChannelConnectionView> {
  const token = input.token.trim();
  const signingSecret = (input.signingSecret ?? '').trim();
  if (!SLACK_TOKEN_SHAPE.test(token)) throw invalid(SLACK_TOKEN_SHAPE_INVALID);
  if (!SLACK_SIGNING_SECRET_SHAPE.test(signingSecret)) throw invalid(SLACK_SECRET_SHAPE_INVALID);
  const where = { chatbotId_channel: { chatbotId: input.chatbotId, channel: 'slack' } };
  if (await deps.db.channelConnection.findUnique({ where })) throw alreadyExists(SLACK_ALREADY_CONNECTED);
  const me = await deps.slack.authTest(token).catch((err: unknown) => {
    if (err instanceof SlackError && !err.retryable)
      throw failedPrecondition(err.status === 401 ? SLACK_TOKEN_REFUSED : `Slack refused: ${err.message}`);
    throw providerUnreachable('slack');
  });
  const slackAppInstall = Boolean(input.slackAppInstall && me.teamId);
  if (slackAppInstall) await refuseHeldWorkspace(deps, input.ownerId, me.teamId);
  const id = randomUUID();
  const row = await deps.db.channelConnection
    .create({
      data: {
        id,
        ownerId: input.ownerId,
        chatbotId: input.chatbotId,
        uniqueId: input.uniqueId,
        channel: 'slack',
        tokenCiphertext: seal(deps.ciphers.current, token, associatedData(id)),
        tokenLastFour: token.slice(-4),
        // Slack signs each request instead of sending a shared secret: nothing to hash.
        secretHash: '',
        signingSecretCiphertext: seal(deps.ciphers.current, signingSecret, signingSecretData(id)),
        botName: me.team ? `${me.botName} (${me.team})` : me.botName,
        // The workspace the token is for: an event another workspace sends to this connection's URL is left.
        accountId: me.teamId || null,
        slackAppInstall,
      },
    })
    .catch(async (err: { code?: string }) => {
      if (err.code !== 'P2002') throw err;
      // Two installs into one workspace at once: the index lets one through, the other reads who holds it.
      if (slackAppInstall) await refuseHeldWorkspace(deps, input.ownerId, me.teamId);
      throw alreadyExists(SLACK_ALREADY_CONNECTED);
    });
  return connectionView(row);
}

export const slackWorkspaceHeld = (uniqueId: string) =>
  `This Slack workspace already answers as your chatbot ${uniqueId} through Add to Slack: disconnect Slack from that chatbot first, then add this one.`;
export const SLACK_WORKSPACE_HELD_ELSEWHERE =
  'This Slack workspace already answers as a chatbot of another Parley account through Add to Slack: that chatbot has to disconnect Slack first.';

/**
 * One install of the operator's app per Slack workspace (docs/adr/0075-one-request-url-for-the-operators-slack-app.md):
 * the app's events are routed by workspace, so a second chatbot's install there is refused, naming the
 * owner's own chatbot that holds it (another account's is not named).
 */
async function refuseHeldWorkspace(deps: Pick<ConnectionDeps, 'db'>, ownerId: string, teamId: string): Promise<void> {
  const holder = await deps.db.channelConnection.findFirst({
    where: { channel: 'slack', slackAppInstall: true, accountId: teamId },
    select: { ownerId: true, uniqueId: true },
  });
  if (!holder) return;
  throw failedPrecondition(holder.ownerId === ownerId ? slackWorkspaceHeld(holder.uniqueId) : SLACK_WORKSPACE_HELD_ELSEWHERE);
}

/** What every channel's connecting checks first: the channel, the chatbot's ids and the webhook's base URL. */
export function checkConnectInput(input: ConnectInput): ChannelName {
  const channel = parseChannel(input.channel);
  if (!isUuid(input.chatbotId) || !input.uniqueId) throw invalid('chatbot_id and unique_id are required.');
  if (!/^https?:\/\/[^\s]+$/.test(input.webhookBaseUrl)) throw invalid('webhook_base_url must be an http(s) URL.');
  return channel;
}

export interface ConnectInput {
  ownerId: string;
  chatbotId: string;
  uniqueId: string;
  channel: string;
  token: string;
  webhookBaseUrl: string;
  /** Slack: the app's signing secret. */
  signingSecret?: string;
  /** Slack: connected through the operator's app ("Add to Slack"), whose one Request URL routes events by workspace. */
  slackAppInstall?: boolean;
  /** Meta's channels. */
  appSecret?: string;
  accountId?: string;
  businessAccountId?: string;
  /** SMS: the Twilio phone number, in E.164. */
  phoneNumber?: string;
}

export const alreadyConnected = (label: string) => alreadyExists(`This chatbot is already connected to ${label}. Disconnect it first.`);

async function ownedConnection(deps: Pick<ConnectionDeps, 'db'>, ownerId: string, connectionId: string) {
  const row = isUuid(connectionId) ? await deps.db.channelConnection.findUnique({ where: { id: connectionId } }) : null;
  if (!row || row.ownerId !== ownerId) throw notFound(CONNECTION_NOT_FOUND);
  return row;
}

/**
 * Removes the registration at the provider (registrations.ts), then the connection and its
 * credentials. A token the provider no longer accepts (revoked) is removed all the same; a
 * provider out of reach keeps the connection, so the owner can try again.
 */
export async function disconnectChannel(deps: ConnectionDeps, ownerId: string, connectionId: string): Promise<boolean> {
  const row = await ownedConnection(deps, ownerId, connectionId).catch(() => null);
  if (!row) return false;
  await removeRegistration(deps, row, openToken(deps.ciphers, row));
  const { count } = await deps.db.channelConnection.deleteMany({ where: { id: row.id } });
  deps.verifiers?.forget(row.id);
  return count > 0;
}

/** Sends the test message to the chat given, else to the last channel user who wrote; the delivery says how it went. */
export async function sendTestMessage(deps: ConnectionDeps, ownerId: string, connectionId: string, chatId: string): Promise<DeliveryView> {
  const row = await ownedConnection(deps, ownerId, connectionId);
  const to = chatId.trim() || row.lastChatId || '';
  if (row.channel === 'email') return sendEmailTest(deps, row, chatId.trim());
  if (row.channel === 'slack') {
    if (!to) throw failedPrecondition(SLACK_NO_CHAT_YET);
    slackDestination(to);
    return deliver(deps.deliver, sendingConnection(deps.ciphers, row), to, SLACK_TEST_MESSAGE, 'test');
  }
  if (!to) throw failedPrecondition(NO_CHAT_YET);
  if (row.channel === 'sms') {
    if (!E164_SHAPE.test(to)) throw invalid(SMS_RECIPIENT_INVALID);
    return deliver(deps.deliver, sendingConnection(deps.ciphers, row), to, SMS_TEST_MESSAGE, 'test');
  }
  if (isMetaChannel(row.channel)) {
    if (!metaRecipientValid(to)) throw invalid(META_RECIPIENT_INVALID);
  } else if (!TELEGRAM_CHAT_ID.test(to)) throw invalid(CHAT_ID_INVALID);
  return deliver(deps.deliver, sendingConnection(deps.ciphers, row), to, TEST_MESSAGE, 'test');
}

/** Email's test message: to the address typed, else to the contact of the last thread; a new mail, in no thread. */
async function sendEmailTest(deps: ConnectionDeps, row: ChannelConnection, typed: string): Promise<DeliveryView> {
  let to = typed;
  if (!to && row.lastChatId) {
    const thread = await deps.db.emailThread.findUnique({
      where: { connectionId_chatId: { connectionId: row.id, chatId: row.lastChatId } },
    });
    to = thread?.contact ?? '';
  }
  if (!to) throw failedPrecondition(EMAIL_NO_CONTACT_YET);
  if (!emailAddressValid(to)) throw invalid(EMAIL_ADDRESS_INVALID);
  return deliver(deps.deliver, sendingConnection(deps.ciphers, row), addressOf(to), EMAIL_TEST_MESSAGE, 'test');
}

export async function listDeliveries(deps: Pick<ConnectionDeps, 'db'>, ownerId: string, connectionId: string): Promise<DeliveryView[]> {
  const row = await ownedConnection(deps, ownerId, connectionId);
  const rows = await deps.db.channelDelivery.findMany({ where: { connectionId: row.id }, orderBy: { createdAt: 'desc' }, take: 50 });
  if (row.channel !== 'email') return rows.map(deliveryView);
  // Email's answers go to a thread (t_…): the owner reads the contact's address instead.
  const threads = await deps.db.emailThread.findMany({
    where: { connectionId: row.id, chatId: { in: [...new Set(rows.map((r) => r.chatId))] } },
    select: { chatId: true, contact: true },
  });
  const contact = new Map(threads.map((t) => [t.chatId, t.contact]));
  return rows.map((r) => deliveryView({ ...r, chatId: contact.get(r.chatId) ?? r.chatId }));
}

export interface SkippedMessageView {
  contact: string;
  reason: string;
  receivedAt: Date;
}

/** How many skipped messages the owner reads on the channel's card. */
export const SKIPPED_LISTED = 20;

/** The connection's latest messages taken and never answered (ChannelInbound.skipReason), newest first. */
export async function listSkippedMessages(
  deps: Pick<ConnectionDeps, 'db'>,
  ownerId: string,
  connectionId: string,
): Promise<SkippedMessageView[]> {
  const row = await ownedConnection(deps, ownerId, connectionId);
  const rows = await deps.db.channelInbound.findMany({
    where: { connectionId: row.id, skipReason: { not: null } },
    orderBy: { receivedAt: 'desc' },
    take: SKIPPED_LISTED,
    select: { contact: true, skipReason: true, receivedAt: true },
  });
  return rows.map((r) => ({ contact: r.contact ?? '', reason: r.skipReason ?? '', receivedAt: r.receivedAt }));
}

/**
 * A deleted chatbot's (or deleted owner's) channel connections go with its conversations: each
 * registration removed at the provider where it still answers (registrations.ts; a provider out of
 * reach is left: the rows go all the same, and later updates are refused 403), then the rows and
 * their credentials.
 */
export async function removeChatbotChannels(deps: ConnectionDeps, chatbotId: string): Promise<number> {
  const rows = await deps.db.channelConnection.findMany({ where: { chatbotId } });
  for (const row of rows) {
    // Nothing here stops the rows going: not a provider out of reach, not a token that no longer opens.
    await Promise.resolve()
      .then(() => removeRegistration(deps, row, openToken(deps.ciphers, row)))
      .catch(() => undefined);
    deps.verifiers?.forget(row.id);
  }
  const { count } = await deps.db.channelConnection.deleteMany({ where: { chatbotId } });
  return count;
}

/**
 * The rotation's last step for channel tokens (docs/operations.md, beside the provider keys'): every
 * token not yet under the current operator key is opened under the previous one and sealed again. A
 * row changed meanwhile is left as it now is; twice changes nothing more.
 */
export async function reencryptChannelTokens(
  db: PrismaClient,
  ciphers: ProviderKeyCiphers,
): Promise<{ reencrypted: number; current: number }> {
  let reencrypted = 0;
  let current = 0;
  for (const row of await db.channelConnection.findMany({ orderBy: { id: 'asc' } })) {
    try {
      open(ciphers.current, row.tokenCiphertext, associatedData(row.id));
      current++;
      continue;
    } catch {
      // Under the previous key (or neither: openToken throws, and the operator keeps the previous key).
    }
    const token = openToken(ciphers, row);
    const signing = row.signingSecretCiphertext ? openSigningSecret(ciphers, row.id, row.signingSecretCiphertext) : null;
    const appSecret = openAppSecret(ciphers, row);
    const { count } = await db.channelConnection.updateMany({
      where: { id: row.id, tokenCiphertext: row.tokenCiphertext },
      data: {
        tokenCiphertext: seal(ciphers.current, token, associatedData(row.id)),
        ...(signing === null ? {} : { signingSecretCiphertext: seal(ciphers.current, signing, signingSecretData(row.id)) }),
        ...(appSecret ? { appSecretCiphertext: sealAppSecret(ciphers, row.id, appSecret) } : {}),
      },
    });
    reencrypted += count;
  }
  return { reencrypted, current };
}
