// The ChatService over ConnectRPC: maps proto messages to the use cases and back, nothing more.
import type { ConnectRouter } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  ChatMessageSchema,
  ChatService,
  ConversationSchema,
  SendMessageResponseSchema,
  type Conversation as ConversationMessage,
} from '@parley/proto/parley/chat/v1/chat_pb.js';
import type { Conversation, Message } from './generated/prisma/client.ts';
import { getConversation } from './conversations/get-conversation.ts';
import { listConversations, type ConversationsDeps } from './conversations/list-conversations.ts';
import { loadChatbotProfile, type ChatbotProfileDeps } from './public-chat/chatbot-profile.ts';
import { sendMessage, streamMessage, type PublicChatDeps } from './public-chat/send-message.ts';

export type ChatRpcDeps = PublicChatDeps & ChatbotProfileDeps & ConversationsDeps;

function toConversationMessage(c: Conversation, messages: Message[] = []): ConversationMessage {
  return create(ConversationSchema, {
    id: c.id,
    sessionId: c.sessionId,
    createdAt: timestampFromDate(c.createdAt),
    updatedAt: timestampFromDate(c.updatedAt),
    userIp: c.userIp ?? '',
    userAgent: c.userAgent ?? '',
    messageCount: c.messageCount,
    messages: messages.map((m) =>
      create(ChatMessageSchema, { role: m.role, content: m.content, timestamp: timestampFromDate(m.createdAt) }),
    ),
  });
}

export function chatRoutes(deps: ChatRpcDeps) {
  return (router: ConnectRouter) => {
    router.service(ChatService, {
      async getPublicChatbot(req) {
        const { name, profilePicture, welcomeMessage, suggestedQuestions } = await loadChatbotProfile(deps, req.uniqueId);
        return { name, profilePicture, welcomeMessage, suggestedQuestions };
      },
      async sendMessage(req) {
        return sendMessage(deps, req);
      },
      async *streamMessage(req) {
        for await (const event of streamMessage(deps, req)) {
          yield 'delta' in event
            ? { event: { case: 'delta' as const, value: event.delta } }
            : { event: { case: 'done' as const, value: create(SendMessageResponseSchema, event.done) } };
        }
      },
      async listConversations(req) {
        const conversations = await listConversations(deps, { ownerId: req.ownerId, chatbotId: req.chatbotId });
        return { conversations: conversations.map((c) => toConversationMessage(c)) };
      },
      async getConversation(req) {
        const conversation = await getConversation(deps, {
          ownerId: req.ownerId,
          chatbotId: req.chatbotId,
          conversationId: req.conversationId,
        });
        return { conversation: toConversationMessage(conversation, conversation.messages) };
      },
    });
  };
}
