// Conversations as owners read them in the History tab, from the chat service's messages.
import type { ChatMessage, Conversation } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { isoDate } from './chatbots.ts';

export type MessageRole = 'user' | 'assistant' | 'system';

export interface ChatMessageView {
  role: MessageRole;
  content: string;
  timestamp: string | null;
}

export interface ConversationView {
  id: string;
  sessionId: string;
  createdAt: string;
  updatedAt: string;
  userIp: string | null;
  userAgent: string | null;
  messageCount: number;
  messages: ChatMessageView[];
}

const roleOf = (role: string): MessageRole => (role === 'user' || role === 'assistant' ? role : 'system');

const messageView = (m: ChatMessage): ChatMessageView => ({ role: roleOf(m.role), content: m.content, timestamp: isoDate(m.timestamp) });

export function conversationView(c: Conversation | undefined): ConversationView {
  if (!c) throw new ConnectError('chat service returned no conversation', Code.Internal);
  return {
    id: c.id,
    sessionId: c.sessionId,
    createdAt: isoDate(c.createdAt)!,
    updatedAt: isoDate(c.updatedAt)!,
    userIp: c.userIp || null,
    userAgent: c.userAgent || null,
    messageCount: c.messageCount,
    messages: c.messages.map(messageView),
  };
}

/** The conversation as REST clients read it (spec §3): `_id`. */
export function restConversation(view: ConversationView) {
  const { id, ...rest } = view;
  return { _id: id, ...rest };
}
