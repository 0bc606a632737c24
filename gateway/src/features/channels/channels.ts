// A chatbot's messaging channels as the dashboard sees them (docs/adr/0044-messaging-channels.md):
// thin calls to chat's channel methods shared by GraphQL and REST. Chat owns every rule and message
// (the token's shape, the provider's check); the gateway confirms the chatbot is the workspace's,
// names the public webhook path under PUBLIC_URL, audits a change with the channel and the token's
// last four characters only, and never answers, logs or keeps the token.
import type { ChannelConnection, ChannelDelivery, SkippedMessage } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { invalid } from '@parley/common/rpc-errors.ts';
import { isoDate } from '../../http/dates.ts';
import type { Clients } from '../../http/clients.ts';
import type { Member } from '../../access/members.ts';
import { forgetChannelVerifier } from './channel-intake.ts';

/** The public path a provider posts a connection's updates to: `{PUBLIC_URL}/api/channels/{channel}/{connectionId}`. */
export const webhookPath = (channel: string) => `/api/channels/${channel}`;

export interface ChannelConnectionView {
  id: string;
  chatbotId: string;
  channel: string;
  status: string;
  lastError: string | null;
  tokenLastFour: string;
  botName: string;
  lastChatId: string | null;
  createdAt: string;
  accountId: string | null;
  webhookUrl: string | null;
  verifyToken: string | null;
  addedToSlack: boolean;
}

export interface ChannelDeliveryView {
  id: string;
  chatId: string;
  kind: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
}

export interface SkippedMessageView {
  contact: string;
  reason: string;
  receivedAt: string;
}

export const TOKEN_INVALID = 'token must be a string';
export const SIGNING_SECRET_INVALID = 'signingSecret must be a string';

const webhookBase = (publicUrl: string, channel: string) => `${publicUrl.replace(/\/+$/, '')}${webhookPath(channel)}`;

export const connectionView = (c: ChannelConnection | undefined, publicUrl: string): ChannelConnectionView => ({
  id: c?.id ?? '',
  chatbotId: c?.chatbotId ?? '',
  channel: c?.channel ?? '',
  status: c?.status ?? '',
  lastError: c?.lastError || null,
  tokenLastFour: c?.tokenLastFour ?? '',
  botName: c?.botName ?? '',
  lastChatId: c?.lastChatId || null,
  createdAt: isoDate(c?.createdAt) ?? new Date(0).toISOString(),
  accountId: c?.accountId || null,
  webhookUrl: c?.id ? `${webhookBase(publicUrl, c.channel)}/${c.id}` : null,
  verifyToken: c?.verifyToken || null,
  addedToSlack: Boolean(c?.slackAppInstall),
});

export const deliveryView = (d: ChannelDelivery | undefined): ChannelDeliveryView => ({
  id: d?.id ?? '',
  chatId: d?.chatId ?? '',
  kind: d?.kind ?? '',
  status: d?.status ?? '',
  attempts: d?.attempts ?? 0,
  lastError: d?.lastError || null,
  createdAt: isoDate(d?.createdAt) ?? new Date(0).toISOString(),
});

const actor = (m: Member) => ({ userId: m.user.id, workspaceId: m.ownerId, clientIp: m.clientIp });

export async function listChannelConnections(
  clients: Clients,
  m: Member,
  chatbotId: string,
  publicUrl: string,
): Promise<ChannelConnectionView[]> {
  const { connections } = await clients.chat.listChannelConnections({ ownerId: m.ownerId, chatbotId });
  return connections.map((c) => connectionView(c, publicUrl));
}

const optionalString = (v: unknown, name: string): string => {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw invalid(`${name} must be a string`);
  return v;
};

export async function connectChannel(
  clients: Clients,
  m: Member,
  input: {
    chatbotId: string;
    channel: string;
    token: unknown;
    signingSecret?: unknown;
    appSecret?: unknown;
    accountId?: unknown;
    businessAccountId?: unknown;
    phoneNumber?: unknown;
  },
  publicUrl: string,
): Promise<ChannelConnectionView> {
  if (typeof input.token !== 'string') throw invalid(TOKEN_INVALID);
  const signingSecret = input.signingSecret ?? '';
  if (typeof signingSecret !== 'string') throw invalid(SIGNING_SECRET_INVALID);
  // NOT_FOUND for a chatbot of another workspace, before anything reaches the provider.
  const { chatbot } = await clients.chatbot.getChatbot({ ownerId: m.ownerId, chatbotId: input.chatbotId });
  const saved = connectionView(
    (
      await clients.chat.connectChannel({
        ownerId: m.ownerId,
        chatbotId: input.chatbotId,
        uniqueId: chatbot?.uniqueId ?? '',
        channel: input.channel,
        token: input.token,
        webhookBaseUrl: webhookBase(publicUrl, input.channel),
        signingSecret,
        appSecret: optionalString(input.appSecret, 'appSecret'),
        accountId: optionalString(input.accountId, 'accountId'),
        businessAccountId: optionalString(input.businessAccountId, 'businessAccountId'),
        phoneNumber: optionalString(input.phoneNumber, 'phoneNumber'),
      })
    ).connection,
    publicUrl,
  );
  await clients.workspaces.recordAuditEvent({
    actor: actor(m),
    action: 'chatbot.channel_connected',
    target: input.chatbotId,
    detailsJson: JSON.stringify({ channel: saved.channel, lastFour: saved.tokenLastFour }),
  });
  return saved;
}

export async function disconnectChannel(clients: Clients, m: Member, connectionId: string): Promise<boolean> {
  const { removed } = await clients.chat.disconnectChannel({ ownerId: m.ownerId, connectionId });
  // The webhooks are checked here (ADR 69): the removed connection is refused by this gateway at once.
  if (removed) forgetChannelVerifier(connectionId);
  if (removed)
    await clients.workspaces.recordAuditEvent({
      actor: actor(m),
      action: 'chatbot.channel_disconnected',
      target: connectionId,
      detailsJson: JSON.stringify({ connectionId }),
    });
  return removed;
}

export async function sendChannelTestMessage(
  clients: Clients,
  m: Member,
  connectionId: string,
  chatId: string,
): Promise<ChannelDeliveryView> {
  return deliveryView((await clients.chat.sendChannelTestMessage({ ownerId: m.ownerId, connectionId, chatId })).delivery);
}

export async function listChannelDeliveries(clients: Clients, m: Member, connectionId: string): Promise<ChannelDeliveryView[]> {
  const { deliveries } = await clients.chat.listChannelDeliveries({ ownerId: m.ownerId, connectionId });
  return deliveries.map(deliveryView);
}

export const skippedMessageView = (s: SkippedMessage): SkippedMessageView => ({
  contact: s.contact,
  reason: s.reason,
  receivedAt: isoDate(s.receivedAt) ?? new Date(0).toISOString(),
});

export async function listSkippedMessages(clients: Clients, m: Member, connectionId: string): Promise<SkippedMessageView[]> {
  const { messages } = await clients.chat.listSkippedMessages({ ownerId: m.ownerId, connectionId });
  return messages.map(skippedMessageView);
}
