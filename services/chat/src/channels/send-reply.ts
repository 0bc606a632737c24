// The channel sender of an agent's reply (docs/adr/0044-messaging-channels.md): the inbox's reply
// path queued it (handoff/agent-actions.ts) for a conversation that came from a messaging channel;
// here it goes out on that channel, to the channel user whose thread the conversation is, with its
// delivery record (kind `agent`). A conversation whose connection was removed meanwhile has nowhere
// to go: nothing is sent.
import type { ChannelReplyRequested } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { ProviderKeyCiphers } from '../provider-keys/provider-keys.ts';
import { sendingConnection } from './connections.ts';
import { deliver, type DeliverDeps, type DeliveryView } from './deliver.ts';

export interface SendReplyDeps {
  db: PrismaClient;
  ciphers: ProviderKeyCiphers;
  deliver: DeliverDeps;
}

export async function sendAgentReply(deps: SendReplyDeps, event: ChannelReplyRequested): Promise<DeliveryView | null> {
  const conversation = await deps.db.conversation.findUnique({
    where: { id: event.conversationId },
    select: { chatbotId: true, sessionId: true, channel: true },
  });
  if (!conversation?.channel) return null;
  const thread = await deps.db.channelThread.findFirst({
    where: { sessionId: conversation.sessionId, connection: { chatbotId: conversation.chatbotId, channel: conversation.channel } },
    include: { connection: true },
  });
  if (!thread) return null;
  return deliver(deps.deliver, sendingConnection(deps.ciphers, thread.connection), thread.chatId, event.text, 'agent');
}
