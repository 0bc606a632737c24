// Chatbots as the product shows them, from the chatbot service's messages. REST and GraphQL share
// these views; only the id field's name differs (`_id` in REST, as spec §3 names it).
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Chatbot, KnowledgeBase } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { languageEnum, languageFields, languageName, readLanguage, type Language, type LanguageName } from '@parley/proto/language.ts';

export interface TextEntryView {
  id: string;
  title: string;
  content: string;
  createdAt: string;
}

export interface KnowledgeBaseView {
  text: string;
  textEntries: TextEntryView[];
}

export interface ChatbotView {
  id: string;
  uniqueId: string;
  name: string;
  profilePicture: string | null;
  isActive: boolean;
  language: LanguageName;
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
    language: languageView(chatbot),
    interactions: Number(chatbot.interactions),
    lastInteraction: isoDate(chatbot.lastInteraction),
    createdAt: isoDate(chatbot.createdAt)!,
    updatedAt: isoDate(chatbot.updatedAt)!,
    knowledgeBase: chatbot.knowledgeBase ? knowledgeBaseView(chatbot.knowledgeBase) : undefined,
  };
}

/** The chatbot's language, the enum field preferred (readLanguage); the chatbot service only stores known ones. */
const languageView = (chatbot: Chatbot) => (readLanguage(chatbot) ?? '') as LanguageName;

/**
 * The language fields of an UpdateChatbot request from what the owner typed: both fields for a
 * language the product knows; otherwise the text as typed, for the chatbot service to refuse with
 * its own message (it owns the rule).
 */
export function languageChange(typed: string | undefined): { primaryLanguage?: Language; language?: string } {
  if (typed === undefined) return {};
  const known = languageName(languageEnum(typed));
  return known ? languageFields(known) : { language: typed };
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
