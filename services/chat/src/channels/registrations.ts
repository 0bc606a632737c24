// The registration a connection makes at its provider, removed when the connection goes
// (docs/adr/0076-registrations-at-the-provider.md): Telegram's webhook (deleteWebhook), Meta's app
// subscription of the page, Instagram account or WhatsApp Business account (DELETE
// /{id}/subscribed_apps), the operator's Slack app in a workspace it was added to (apps.uninstall),
// and a Twilio number's "A message comes in" webhook, cleared only while it still is this
// connection's URL. A pasted Slack token's app and email have nothing of Parley's at a provider.
// One rule for what a provider answers, whichever it is: a refusal (a revoked or invalid token, an
// account or number gone) cannot be made good by trying again, so the connection is removed all the
// same; a provider out of reach (no answer, a timeout, 429, 5xx, an answer not the provider's) keeps
// the connection, so the owner can try again.
import { unavailableToUser } from '@parley/common/rpc-errors.ts';
import type { ChannelConnection } from '../generated/prisma/client.ts';
import type { ConnectionDeps } from './connections.ts';
import { MetaError } from './meta-api.ts';
import { SlackError } from './slack-api.ts';
import type { SlackApp } from './slack-install.ts';
import { TelegramError } from './telegram-api.ts';
import { TwilioError } from './twilio-api.ts';

export type RegistrationDeps = Pick<ConnectionDeps, 'db' | 'telegram' | 'slack' | 'meta' | 'twilio'> & { slackApp?: SlackApp | null };

/** The provider's own refusal, which another try would meet again: the registration is taken as gone. */
export function providerRefused(err: unknown): boolean {
  const known = err instanceof TelegramError || err instanceof SlackError || err instanceof MetaError || err instanceof TwilioError;
  return known && !err.retryable;
}

/** What the owner reads, connecting or disconnecting, when the channel's provider cannot be reached. */
export const UNREACHABLE = {
  telegram: 'Telegram could not be reached. Please try again.',
  slack: 'Slack could not be reached. Please try again.',
  meta: 'Meta could not be reached. Please try again.',
  twilio: 'Twilio could not be reached. Please try again.',
} as const;

/** The provider out of reach, told to the owner in its words (UNAVAILABLE that the gateway answers 503 with this message). */
export const providerUnreachable = (provider: keyof typeof UNREACHABLE) => unavailableToUser(UNREACHABLE[provider]);

const PROVIDER_OF: Record<string, keyof typeof UNREACHABLE> = {
  telegram: 'telegram',
  slack: 'slack',
  sms: 'twilio',
  whatsapp: 'meta',
  messenger: 'meta',
  instagram: 'meta',
};

/** Calls the provider to remove what the connection registered there; its token is given opened. */
async function unregister(deps: RegistrationDeps, row: ChannelConnection, token: string): Promise<void> {
  switch (row.channel) {
    case 'telegram':
      return deps.telegram.deleteWebhook(token);
    case 'slack':
      // A pasted token's app is the owner's own: its Request URL is theirs to remove, and the app stays.
      if (row.slackAppInstall && deps.slackApp) await deps.slack.uninstall(deps.slackApp, token);
      return;
    case 'whatsapp':
    case 'messenger':
    case 'instagram':
      return unsubscribeMeta(deps, row, token);
    case 'sms':
      return clearSmsWebhook(deps, row, token);
    default:
      // Email: the inbound address is Parley's own domain; nothing is registered anywhere else.
      return;
  }
}

/**
 * The account's subscription to the app removed, unless another connection still answers through it:
 * a WhatsApp Business account holds several phone numbers, each maybe another chatbot's, and a page
 * may be connected twice. Which app each holds is not known (its id is not kept), so any other
 * connection of the same account keeps the subscription.
 */
async function unsubscribeMeta(deps: RegistrationDeps, row: ChannelConnection, token: string): Promise<void> {
  const whatsapp = row.channel === 'whatsapp';
  const subscribed = whatsapp ? row.businessAccountId : row.accountId;
  if (!subscribed) return;
  const others = await deps.db.channelConnection.count({
    where: { id: { not: row.id }, channel: row.channel, ...(whatsapp ? { businessAccountId: subscribed } : { accountId: subscribed }) },
  });
  if (others === 0) await deps.meta.unsubscribeApp(token, subscribed);
}

/** The number's webhook cleared if it still is this connection's URL: someone may have pointed the number elsewhere since. */
async function clearSmsWebhook(deps: RegistrationDeps, row: ChannelConnection, authToken: string): Promise<void> {
  const accountSid = row.accountId ?? '';
  const number = await deps.twilio.findNumber(accountSid, authToken, row.botName);
  // The number left the account (released, moved): nothing of this connection's is on it.
  if (!number || !row.callbackUrl) return;
  const { smsUrl } = await deps.twilio.smsWebhook(accountSid, authToken, number.sid);
  if (smsUrl !== row.callbackUrl) return;
  await deps.twilio.setSmsWebhook(accountSid, authToken, number.sid, '');
}

/**
 * Removes the connection's registration at its provider. A refusal is taken as the registration
 * gone (resolves); a provider out of reach throws that provider's "could not be reached", and the
 * caller keeps the connection.
 */
export async function removeRegistration(deps: RegistrationDeps, row: ChannelConnection, token: string): Promise<void> {
  try {
    await unregister(deps, row, token);
  } catch (err) {
    if (!providerRefused(err)) throw providerUnreachable(PROVIDER_OF[row.channel] ?? 'meta');
  }
}
