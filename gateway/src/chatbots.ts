// Chatbots as the product shows them, from the chatbot service's messages. REST and GraphQL share
// these views; only the id field's name differs (`_id` in REST, as spec §3 names it).
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Chatbot, KnowledgeBase } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';

export type Language = 'english' | 'french' | 'chinese';

export interface KnowledgeEntryView {
  id: string;
  title: string;
  content: string;
  createdAt: string;
}

export interface KnowledgeBaseView {
  text: string;
  textEntries: KnowledgeEntryView[];
}

export interface ChatbotView {
  id: string;
  uniqueId: string;
  name: string;
  profilePicture: string | null;
  isActive: boolean;
  language: Language;
  interactions: number;
  lastInteraction: string | null;
  createdAt: string;
  updatedAt: string;
  /** Present when the service sent it (lists and single reads ask for it). */
  knowledgeBase?: KnowledgeBaseView;
}

export const isoDate = (ts: Timestamp | undefined): string | null => (ts ? timestampDate(ts).toISOString() : null);

export function knowledgeBaseView(kb: KnowledgeBase | undefined): KnowledgeBaseView {
  return {
    text: kb?.text ?? '',
    textEntries: (kb?.textEntries ?? []).map((e) => ({ id: e.id, title: e.title, content: e.content, createdAt: isoDate(e.createdAt)! })),
  };
}

export function chatbotView(chatbot: Chatbot | undefined): ChatbotView {
  // A contract violation, not a user error: it surfaces as a logged 500.
  if (!chatbot) throw new ConnectError('chatbot service returned no chatbot', Code.Internal);
  return {
    id: chatbot.id,
    uniqueId: chatbot.uniqueId,
    name: chatbot.name,
    profilePicture: chatbot.profilePicture || null,
    isActive: chatbot.isActive,
    language: chatbot.language as Language,
    interactions: Number(chatbot.interactions),
    lastInteraction: isoDate(chatbot.lastInteraction),
    createdAt: isoDate(chatbot.createdAt)!,
    updatedAt: isoDate(chatbot.updatedAt)!,
    knowledgeBase: chatbot.knowledgeBase ? knowledgeBaseView(chatbot.knowledgeBase) : undefined,
  };
}

/** The knowledge base as REST clients read it: entries carry `_id`. */
export function restKnowledgeBase(kb: KnowledgeBaseView) {
  return { text: kb.text, textEntries: kb.textEntries.map(({ id, ...rest }) => ({ _id: id, ...rest })) };
}

/** The chatbot as REST clients read it (spec §3): `_id`, and the knowledge base always present. */
export function restChatbot(view: ChatbotView) {
  const { id, knowledgeBase, ...rest } = view;
  return { _id: id, ...rest, knowledgeBase: restKnowledgeBase(knowledgeBase ?? { text: '', textEntries: [] }) };
}
