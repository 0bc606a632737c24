// The ChatService's messaging channel methods over ConnectRPC (docs/adr/0044-messaging-channels.md),
// spread into the service's routes by rpc.ts: map proto messages to the use cases and back. No
// response carries a credential or the webhook's secret.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  ChannelConnectionSchema,
  ChannelDeliverySchema,
  SkippedMessageSchema,
  type ConnectChannelRequest,
  type ConnectSlackInstallRequest,
  type DisconnectChannelRequest,
  type GetChannelVerifierRequest,
  type ListChannelConnectionsRequest,
  type ListChannelDeliveriesRequest,
  type ListSkippedMessagesRequest,
  type ReceiveChannelUpdateRequest,
  type SendChannelTestMessageRequest,
  type VerifyChannelWebhookRequest,
} from '@parley/proto/parley/chat/v1/chat_pb.js';
import { invalid } from '@parley/common/rpc-errors.ts';
import {
  connectChannel,
  disconnectChannel,
  listConnections,
  listDeliveries,
  listSkippedMessages,
  sendTestMessage,
  type ChannelConnectionView,
  type ConnectionDeps,
} from './connections.ts';
import type { DeliveryView } from './deliver.ts';
import { getChannelVerifier, receiveChannelUpdate, type ReceiveDeps } from './receive-update.ts';
import { connectSlackInstall, slackAppVerifier, type SlackApp } from './slack-install.ts';
import { receiveMetaUpdate, verifyChannelWebhook } from './meta-receive.ts';
import { connectMetaChannel } from './meta-connections.ts';
import { connectEmail } from './email-connections.ts';
import { receiveEmailUpdate } from './email-receive.ts';
import { isMetaChannel } from './meta-channels.ts';
import { connectSms } from './sms-connections.ts';
import { receiveSmsUpdate } from './sms-receive.ts';

export interface ChannelRpcDeps {
  channels: ConnectionDeps & ReceiveDeps & { slackApp: SlackApp | null };
}

const toConnection = (c: ChannelConnectionView) =>
  create(ChannelConnectionSchema, {
    id: c.id,
    chatbotId: c.chatbotId,
    channel: c.channel,
    status: c.status,
    lastError: c.lastError,
    tokenLastFour: c.tokenLastFour,
    botName: c.botName,
    createdAt: timestampFromDate(c.createdAt),
    lastChatId: c.lastChatId,
    verifyToken: c.verifyToken,
    accountId: c.accountId,
    slackAppInstall: c.slackAppInstall,
  });

const toDelivery = (d: DeliveryView) =>
  create(ChannelDeliverySchema, {
    id: d.id,
    connectionId: d.connectionId,
    chatId: d.chatId,
    kind: d.kind,
    status: d.status,
    attempts: d.attempts,
    lastError: d.lastError,
    createdAt: timestampFromDate(d.createdAt),
  });

const ownerIdOf = (raw: string): string => {
  if (!/^[\w-]{1,64}$/.test(raw)) throw invalid('owner_id is required.');
  return raw;
};

export function channelMethods(deps: ChannelRpcDeps) {
  const c = deps.channels;
  return {
    async listChannelConnections(req: ListChannelConnectionsRequest) {
      return { connections: (await listConnections(c, ownerIdOf(req.ownerId), req.chatbotId)).map(toConnection) };
    },
    async connectChannel(req: ConnectChannelRequest) {
      const connect = isMetaChannel(req.channel)
        ? connectMetaChannel
        : req.channel === 'email'
          ? connectEmail
          : req.channel === 'sms'
            ? connectSms
            : connectChannel;
      const connection = await connect(c, {
        ownerId: ownerIdOf(req.ownerId),
        chatbotId: req.chatbotId,
        uniqueId: req.uniqueId,
        channel: req.channel,
        token: req.token,
        webhookBaseUrl: req.webhookBaseUrl,
        signingSecret: req.signingSecret,
        appSecret: req.appSecret,
        accountId: req.accountId,
        businessAccountId: req.businessAccountId,
        phoneNumber: req.phoneNumber,
      });
      return { connection: toConnection(connection) };
    },
    async connectSlackInstall(req: ConnectSlackInstallRequest) {
      const connection = await connectSlackInstall(c, {
        ownerId: ownerIdOf(req.ownerId),
        chatbotId: req.chatbotId,
        uniqueId: req.uniqueId,
        code: req.code,
        redirectUri: req.redirectUri,
        webhookBaseUrl: req.webhookBaseUrl,
      });
      return { connection: toConnection(connection) };
    },
    async getChannelVerifier(req: GetChannelVerifierRequest) {
      if (req.slackApp) return slackAppVerifier(c, req.channel, req.slackTeamId);
      return getChannelVerifier(c, { channel: req.channel, connectionId: req.connectionId });
    },
    async disconnectChannel(req: DisconnectChannelRequest) {
      return { removed: await disconnectChannel(c, ownerIdOf(req.ownerId), req.connectionId) };
    },
    async sendChannelTestMessage(req: SendChannelTestMessageRequest) {
      return { delivery: toDelivery(await sendTestMessage(c, ownerIdOf(req.ownerId), req.connectionId, req.chatId)) };
    },
    async listChannelDeliveries(req: ListChannelDeliveriesRequest) {
      return { deliveries: (await listDeliveries(c, ownerIdOf(req.ownerId), req.connectionId)).map(toDelivery) };
    },
    async listSkippedMessages(req: ListSkippedMessagesRequest) {
      const skipped = await listSkippedMessages(c, ownerIdOf(req.ownerId), req.connectionId);
      return {
        messages: skipped.map((s) =>
          create(SkippedMessageSchema, { contact: s.contact, reason: s.reason, receivedAt: timestampFromDate(s.receivedAt) }),
        ),
      };
    },
    async receiveChannelUpdate(req: ReceiveChannelUpdateRequest) {
      if (req.channel === 'email') return receiveEmailUpdate(c, { connectionId: req.connectionId, body: req.body });
      if (req.channel === 'sms') return receiveSmsUpdate(c, { connectionId: req.connectionId, secret: req.secret, body: req.body });
      if (isMetaChannel(req.channel))
        return receiveMetaUpdate(c, { channel: req.channel, connectionId: req.connectionId, secret: req.secret, body: req.body });
      return receiveChannelUpdate(c, {
        channel: req.channel,
        connectionId: req.connectionId,
        secret: req.secret,
        body: req.body,
        timestamp: req.timestamp,
      });
    },
    async verifyChannelWebhook(req: VerifyChannelWebhookRequest) {
      await verifyChannelWebhook(c, { channel: req.channel, connectionId: req.connectionId, mode: req.mode, verifyToken: req.verifyToken });
      return {};
    },
  };
}
