// Connecting a chatbot to WhatsApp, Messenger or Instagram (docs/adr/0056-meta-channels.md). The
// owner gives the account's id (the WhatsApp phone-number id, the Facebook page or Instagram account
// id; WhatsApp also the business account id), the token (a system user's, or the page's) and the
// app's secret; each is checked for its shape before any call, then the account is read with the
// token (Meta refused: nothing stored). Token and app secret are sealed under the operator's key,
// each with its own associated data; only their last four characters are shown again. Parley
// generates the webhook's verify token (256 random bits), answers it once with the webhook's URL for
// the owner to paste in Meta's console, and keeps its SHA-256 alone.
import { randomBytes, randomUUID } from 'node:crypto';
import { failedPrecondition, invalid, unavailable } from '@parley/common/rpc-errors.ts';
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

export const META_TOKEN_INVALID = 'The access token must be the one Meta gives (letters and digits, starting EAA…).';
export const META_APP_SECRET_INVALID = "The app secret must be the 32 characters shown in the app's Basic settings.";
export const META_ACCOUNT_ID_INVALID = 'The account id must be the number Meta shows for it.';
export const META_UNREACHABLE = 'Meta could not be reached. Please try again.';
export const metaTokenRefused = (label: string) => `Meta refused this access token for the ${label} account.`;

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
  const account = await deps.meta.account(channel, token, accountId).catch((err: unknown) => {
    if (err instanceof MetaError && !err.retryable)
      throw failedPrecondition(err.status === 401 ? metaTokenRefused(label) : `Meta refused: ${err.message}`);
    throw unavailable(META_UNREACHABLE);
  });
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
  return { ...connectionView(row), verifyToken };
}
