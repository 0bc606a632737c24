// Conversations as owners read them in the History tab, from the chat service's messages.
import type { AnsweringModel, ChatMessage, Conversation, Source } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { isoDate } from '../../http/dates.ts';

/** Who wrote a message: the visitor, the bot, the product, a member answering the visitor (agent), or a member's internal note. */
export type MessageRole = 'user' | 'assistant' | 'system' | 'agent' | 'note';

/** A visitor's thumbs on an answer. */
export type MessageRating = 'up' | 'down';

export interface ChatMessageView {
  /** Null for messages stored before ids were shown. */
  id: string | null;
  role: MessageRole;
  content: string;
  /** The member who wrote an agent reply or a note; null for every other message. */
  authorName: string | null;
  timestamp: string | null;
  /** Null when the visitor did not rate it (and for every visitor message). */
  rating: MessageRating | null;
  /** What an answer cited, in the order its [n] markers number them; [] when it cited none. */
  sources: AnswerSourceView[];
  /** The model that gave a model's answer; null for every other message (and offline or Q&A answers). */
  model: AnsweringModelView | null;
  /** The chatbot's chosen model failed before its first token and `model` is its fallback. */
  fallback: boolean;
}

/** A model as the catalogue names it (a model it no longer lists is named by its id). */
export interface AnsweringModelView {
  id: string;
  displayName: string;
  /** openai, anthropic or gemini. */
  provider: string;
}

/** The model that gave an answer, as the owner's views show it. */
export const answeringModelView = (m: AnsweringModel | undefined): AnsweringModelView | null =>
  m ? { id: m.id, displayName: m.displayName || m.id, provider: m.provider } : null;

export interface AnswerSourceView {
  entryId: string;
  title: string;
  /** A website entry's address; absent otherwise. */
  url?: string;
}

/** An answer's sources as clients read them, in a chat reply and in History: `url` only for a source that has one. */
export const answerSources = (sources: Source[]): AnswerSourceView[] =>
  sources.map(({ entryId, title, url }) => (url ? { entryId, title, url } : { entryId, title }));

export interface ConversationView {
  id: string;
  sessionId: string;
  createdAt: string;
  updatedAt: string;
  userIp: string | null;
  userAgent: string | null;
  /** What the host page told the widget about the visitor (Parley.identify); null when not told. */
  visitorId: string | null;
  visitorName: string | null;
  /** The verified visitor (a userHash matched the chatbot's identity secret); null when never verified. */
  verifiedUserId: string | null;
  verifiedEmail: string | null;
  messageCount: number;
  /** web, or the messaging channel it came from (telegram). */
  channel: string;
  messages: ChatMessageView[];
}

const ROLES = new Set<string>(['user', 'assistant', 'system', 'agent', 'note']);

// A role this gateway does not know yet is shown as the product's own line, never dropped.
const roleOf = (role: string): MessageRole => (ROLES.has(role) ? (role as MessageRole) : 'system');

const ratingOf = (rating: string): MessageRating | null => (rating === 'up' || rating === 'down' ? rating : null);

const messageView = (m: ChatMessage): ChatMessageView => ({
  id: m.id || null,
  role: roleOf(m.role),
  content: m.content,
  authorName: m.authorName || null,
  timestamp: isoDate(m.timestamp),
  rating: ratingOf(m.rating),
  sources: answerSources(m.sources),
  model: answeringModelView(m.answeredBy),
  fallback: m.fallback,
});

export function conversationView(c: Conversation | undefined): ConversationView {
  if (!c) throw new ConnectError('chat service returned no conversation', Code.Internal);
  return {
    id: c.id,
    sessionId: c.sessionId,
    createdAt: isoDate(c.createdAt)!,
    updatedAt: isoDate(c.updatedAt)!,
    userIp: c.userIp || null,
    userAgent: c.userAgent || null,
    visitorId: c.visitorId || null,
    visitorName: c.visitorName || null,
    verifiedUserId: c.verifiedUserId || null,
    verifiedEmail: c.verifiedEmail || null,
    messageCount: c.messageCount,
    channel: c.channel || 'web',
    messages: c.messages.map(messageView),
  };
}

/** The conversation as REST clients read it (docs/product.md, Conversation history): `_id`. */
export function restConversation(view: ConversationView) {
  const { id, ...rest } = view;
  return { _id: id, ...rest };
}
