// Connecting a chatbot to WhatsApp, Messenger or Instagram (docs/adr/0056-meta-channels.md). The
// owner gives the account's id (the WhatsApp phone-number id, the Facebook page or Instagram account
// id; WhatsApp also the business account id), the token (a system user's, or the page's) and the
// app's secret; each is checked for its shape before any call, then the account is read with the
// token (Meta refused: nothing stored). Token and app secret are sealed under the operator's key,
// each with its own associated data; only their last four characters are shown again. Parley
// generates the webhook's verify token (256 random bits), answers it once with the webhook's URL for
// the owner to paste in their app's webhook settings in Meta's console (the app's one callback URL
// is the app's setting, not the account's), and keeps its SHA-256 alone. The account itself is
// subscribed to the app's webhooks by Parley (POST /{id}/subscribed_apps: the page or Instagram
// account with the page token, the WhatsApp Business account with the system user's;
// docs/adr/0076-registrations-at-the-provider.md); Meta refusing it keeps nothing.
import { randomBytes, randomUUID } from 'node:crypto';
import { failedPrecondition, invalid } from '@parley/common/rpc-errors.ts';
import {
  alreadyConnected,
  checkConnectInput,
  connectionView,
  sealAppSecret,
  sealToken,
  secretHashOf,
  type ChannelConnectionView,
  type ConnectInput,
  type ConnectionDeps,
} from './connections.ts';
import { MetaError, META_APP_SECRET_SHAPE, META_ID_SHAPE, META_TOKEN_SHAPE } from './meta-api.ts';
import { isMetaChannel, META_CHANNEL_RULES } from './meta-channels.ts';
import { providerUnreachable, UNREACHABLE } from './registrations.ts';

export const META_TOKEN_INVALID = 'The access token must be the one Meta gives (letters and digits, starting EAA…).';
export const META_APP_SECRET_INVALID = "The app secret must be the 32 characters shown in the app's Basic settings.";
export const META_ACCOUNT_ID_INVALID = 'The account id must be the number Meta shows for it.';
export const META_UNREACHABLE = UNREACHABLE.meta;
export const metaTokenRefused = (label: string) => `Meta refused this access token for the ${label} account.`;
/** What a page's or Instagram account's subscription asks Meta to send: messages and the buttons' postbacks. */
export const META_SUBSCRIBED_FIELDS = ['messages', 'messaging_postbacks'] as const;

export async function connectMetaChannel(deps: ConnectionDeps, input: ConnectInput): Promise<ChannelConnectionView> {
  const channel = checkConnectInput(input);
  if (!isMetaChannel(channel)) throw new Error(`not one of Meta's channels: ${channel}`);
  const { label } = META_CHANNEL_RULES[channel];
  const token = input.token.trim();
  const appSecret = (input.appSecret ?? '').trim();
  const accountId = (input.accountId ?? '').trim();
  const businessAccountId = (input.businessAccountId ?? '').trim();
  if (!META_ID_SHAPE.test(accountId)) throw invalid(META_ACCOUNT_ID_INVALID);
  if (channel === 'whatsapp' && !META_ID_SHAPE.test(businessAccountId)) throw invalid(META_ACCOUNT_ID_INVALID);
  if (!META_TOKEN_SHAPE.test(token)) throw invalid(META_TOKEN_INVALID);
  if (!META_APP_SECRET_SHAPE.test(appSecret)) throw invalid(META_APP_SECRET_INVALID);
  const existing = await deps.db.channelConnection.findUnique({ where: { chatbotId_channel: { chatbotId: input.chatbotId, channel } } });
  if (existing) throw alreadyConnected(label);
  const refused = (err: unknown): never => {
    if (err instanceof MetaError && !err.retryable)
      throw failedPrecondition(err.status === 401 ? metaTokenRefused(label) : `Meta refused: ${err.message}`);
    throw providerUnreachable('meta');
  };
  const account = await deps.meta.account(channel, token, accountId).catch(refused);
  const id = randomUUID();
  const verifyToken = randomBytes(32).toString('base64url');
  const row = await deps.db.channelConnection
    .create({
      data: {
        id,
        ownerId: input.ownerId,
        chatbotId: input.chatbotId,
        uniqueId: input.uniqueId,
        channel,
        tokenCiphertext: sealToken(deps.ciphers, id, token),
        tokenLastFour: token.slice(-4),
        appSecretCiphertext: sealAppSecret(deps.ciphers, id, appSecret),
        accountId,
        businessAccountId: channel === 'whatsapp' ? businessAccountId : null,
        secretHash: secretHashOf(verifyToken),
        botName: account.name,
      },
    })
    .catch((err: { code?: string }) => {
      if (err.code === 'P2002') throw alreadyConnected(label);
      throw err;
    });
  const subscribed =
    channel === 'whatsapp'
      ? deps.meta.subscribeApp(token, businessAccountId)
      : deps.meta.subscribeApp(token, accountId, META_SUBSCRIBED_FIELDS);
  await subscribed.catch(async (err: unknown) => {
    await deps.db.channelConnection.delete({ where: { id } });
    refused(err);
  });
  return { ...connectionView(row), verifyToken };
}
