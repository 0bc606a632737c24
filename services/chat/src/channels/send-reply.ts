// The channel sender of the team's messages (docs/adr/0044-messaging-channels.md,
// docs/adr/0062-channel-replies-exactly-once.md): an agent's reply (handoff/agent-actions.ts) or the
// wait's timeout message (handoff/handoff-timeout.ts), stored in a conversation that came from a
// messaging channel and queued on parley.channel-outbound; here it goes out on that channel, to the
// channel user whose thread the conversation is, once per stored message (deliver.ts claims its
// record by the message id), with its delivery record (kind `agent`, or `notice` for the
// conversation's own message). A conversation whose connection was removed meanwhile has nowhere to
// go, nor has a message that is not the conversation's: nothing is sent.
import { isUuid } from '@parley/common/ids.ts';
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

const MESSAGE_ID = /^[1-9]\d{0,18}$/;

export async function sendAgentReply(deps: SendReplyDeps, event: ChannelReplyRequested): Promise<DeliveryView | null> {
  if (!isUuid(event.conversationId) || !MESSAGE_ID.test(event.messageId)) return null;
  const messageId = BigInt(event.messageId);
  const conversation = await deps.db.conversation.findUnique({
    where: { id: event.conversationId },
    select: { chatbotId: true, sessionId: true, channel: true, messages: { where: { id: messageId }, select: { role: true } } },
  });
  const role = conversation?.messages[0]?.role;
  if (!conversation?.channel || (role !== 'agent' && role !== 'system')) return null;
  const thread = await deps.db.channelThread.findFirst({
    where: { sessionId: conversation.sessionId, connection: { chatbotId: conversation.chatbotId, channel: conversation.channel } },
    include: { connection: true },
  });
  if (!thread) return null;
  const kind = role === 'agent' ? 'agent' : 'notice';
  return deliver(deps.deliver, sendingConnection(deps.ciphers, thread.connection), thread.chatId, event.text, kind, { messageId });
}
