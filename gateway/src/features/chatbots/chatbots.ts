// Chatbots as the product shows them, from the chatbot service's messages. REST and GraphQL share
// these views; only the id field's name differs (`_id` in REST, docs/product.md, Chatbots).
import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  Appearance,
  Chatbot,
  Embedding,
  UpdateChatbotRequestSchema,
  VisitorLimits,
  Voice,
} from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { PublicAppearance } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { readAppearance, type LauncherPosition } from '@parley/proto/appearance.ts';
import { languageEnum, languageFields, languageName, readLanguage, type Language, type LanguageName } from '@parley/proto/language.ts';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { Clients } from '../../http/clients.ts';
import { leadSettingsView, type LeadSettingsView } from '../leads/leads.ts';
import { privacyView, type PrivacyView } from '../privacy/privacy.ts';
import { chatbotModelsView, modelChoiceChange, recordModelChange, type ChatbotModelView, type ModelChoiceInput } from '../models/models.ts';
import { isoDate } from '../../http/dates.ts';
import { int32Field } from '../../http/input.ts';
import { knowledgeBaseView, restKnowledgeBase, type KnowledgeBaseView } from '../knowledge/knowledge.ts';

/** How the chatbot speaks (Voice in chatbot.proto): empty strings and a null temperature are the product's defaults. */
export interface VoiceView {
  instructions: string;
  temperature: number | null;
  welcomeMessage: string;
  suggestedQuestions: string[];
  noAnswerMessage: string;
  /** Answers in the language the visitor writes in, whatever `language`; false: always `language`. */
  answerInVisitorLanguage: boolean;
}

/** How the public page and the widget look (Appearance in chatbot.proto); a null colour is the product's. */
export interface AppearanceView {
  primaryColor: string | null;
  position: LauncherPosition;
  launcherLabel: string;
  hideBranding: boolean;
}

/** What visitors may spend; a null limit is no limit, dollars an exact decimal ("5.00"). */
export interface VisitorLimitsView {
  visitorMessagesPerDay: number | null;
  dailySpendLimit: string | null;
  proofOfWork: boolean;
}

/** Appearance, where the chatbot may run and what its visitors may spend (docs/product.md, The widget). */
export interface EmbedSettingsView {
  appearance: AppearanceView;
  allowedDomains: string[];
  standalonePage: boolean;
  limits: VisitorLimitsView;
}

export interface ChatbotView extends VoiceView, EmbedSettingsView, LeadSettingsView {
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
  /** Personal data kept from the model (features/privacy). */
  privacy: PrivacyView;
  /** The model that answers (models.ts). */
  model: ChatbotModelView;
  /** The model tried once when `model` fails before its first word; null: none. */
  fallbackModel: ChatbotModelView | null;
  /** Present when the service sent it (lists and single reads ask for it). */
  knowledgeBase?: KnowledgeBaseView;
}

export function voiceView(voice: Voice | undefined): VoiceView {
  return {
    instructions: voice?.instructions ?? '',
    temperature: voice?.temperature ?? null,
    welcomeMessage: voice?.welcomeMessage ?? '',
    suggestedQuestions: [...(voice?.suggestedQuestions ?? [])],
    noAnswerMessage: voice?.noAnswerMessage ?? '',
    answerInVisitorLanguage: voice?.answerInVisitorLanguage ?? false,
  };
}

export function chatbotView(chatbot: Chatbot | undefined, catalogue: ModelCatalogue): ChatbotView {
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
    ...voiceView(chatbot.voice),
    ...embedSettingsView(chatbot),
    ...leadSettingsView(chatbot),
    ...privacyView(chatbot),
    ...chatbotModelsView(chatbot.model, catalogue),
    knowledgeBase: chatbot.knowledgeBase ? knowledgeBaseView(chatbot.knowledgeBase) : undefined,
  };
}

/** The appearance with the product's defaults for what is not set (readAppearance); no colour is the product's. */
export function appearanceView(appearance: Appearance | PublicAppearance | undefined): AppearanceView {
  const settings = readAppearance(appearance);
  return { ...settings, primaryColor: settings.primaryColor || null };
}

/**
 * The settings as the owner reads them. A chatbot service that sends no embedding or limits
 * predates them: the standalone page was then always on, and nothing was limited.
 */
export function embedSettingsView(chatbot: { appearance?: Appearance; embedding?: Embedding; limits?: VisitorLimits }): EmbedSettingsView {
  const { embedding, limits } = chatbot;
  return {
    appearance: appearanceView(chatbot.appearance),
    allowedDomains: [...(embedding?.allowedDomains ?? [])],
    standalonePage: embedding?.standalonePage ?? true,
    limits: {
      visitorMessagesPerDay: limits?.visitorMessagesPerDay ?? null,
      dailySpendLimit: limits?.dailySpendLimit ?? null,
      proofOfWork: limits?.proofOfWork ?? false,
    },
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

/** What the owner asked to change in the voice; undefined leaves a field as it is, a null temperature resets it. */
export interface VoiceInput {
  instructions?: string;
  temperature?: number | null;
  welcomeMessage?: string;
  suggestedQuestions?: string[];
  noAnswerMessage?: string;
  answerInVisitorLanguage?: boolean;
}

/** The `voice` of an UpdateChatbot request (VoiceChange), absent when nothing in it changes. The values are the service's to check. */
export function voiceChange(input: VoiceInput) {
  const { instructions, temperature, welcomeMessage, suggestedQuestions, noAnswerMessage, answerInVisitorLanguage } = input;
  if (
    [instructions, temperature, welcomeMessage, suggestedQuestions, noAnswerMessage, answerInVisitorLanguage].every((v) => v === undefined)
  )
    return {};
  return {
    voice: {
      instructions,
      temperature: temperature ?? undefined,
      clearTemperature: temperature === null,
      welcomeMessage,
      suggestedQuestions: suggestedQuestions && { questions: suggestedQuestions },
      noAnswerMessage,
      answerInVisitorLanguage,
    },
  };
}

/** What the owner asked to change in the appearance; undefined leaves a field as it is, a null colour resets it. */
export interface AppearanceInput {
  primaryColor?: string | null;
  position?: string;
  launcherLabel?: string;
  hideBranding?: boolean;
}

/** What the owner asked to change in the limits; undefined leaves a limit as it is, null removes it. */
export interface VisitorLimitsInput {
  visitorMessagesPerDay?: number | null;
  /** Dollars as typed: a JSON number or a string (the chatbot service owns the rule). */
  dailySpendLimit?: number | string | null;
  proofOfWork?: boolean;
}

export interface EmbedSettingsInput {
  appearance?: AppearanceInput;
  allowedDomains?: string[];
  standalonePage?: boolean;
  limits?: VisitorLimitsInput;
}

const allUndefined = (values: unknown[]) => values.every((v) => v === undefined);

/**
 * The `appearance`, `embedding` and `limits` of an UpdateChatbot request (AppearanceChange,
 * EmbeddingChange, VisitorLimitsChange), each absent when nothing in it changes. The values are the
 * service's to check: a whole number beyond int32 or a fraction travels as one it refuses.
 */
export function embedSettingsChange(input: EmbedSettingsInput) {
  const { appearance = {}, allowedDomains, standalonePage, limits = {} } = input;
  const { visitorMessagesPerDay: perDay, dailySpendLimit: dollars } = limits;
  return {
    ...(allUndefined(Object.values(appearance))
      ? {}
      : {
          appearance: {
            primaryColor: appearance.primaryColor === null ? '' : appearance.primaryColor,
            position: appearance.position,
            launcherLabel: appearance.launcherLabel,
            hideBranding: appearance.hideBranding,
          },
        }),
    ...(allUndefined([allowedDomains, standalonePage])
      ? {}
      : { embedding: { allowedDomains: allowedDomains && { domains: allowedDomains }, standalonePage } }),
    ...(allUndefined(Object.values(limits))
      ? {}
      : {
          limits: {
            visitorMessagesPerDay: perDay === null || perDay === undefined ? undefined : int32Field(perDay),
            clearVisitorMessagesPerDay: perDay === null,
            dailySpendLimit: dollars === null || dollars === undefined ? undefined : String(dollars),
            clearDailySpendLimit: dollars === null,
            proofOfWork: limits.proofOfWork,
          },
        }),
  };
}

/** The chatbot as REST clients read it (docs/product.md, Chatbots): `_id`, and the knowledge base always present. */
export function restChatbot(view: ChatbotView) {
  const { id, knowledgeBase, ...rest } = view;
  return { _id: id, ...rest, knowledgeBase: restKnowledgeBase(knowledgeBase ?? { text: '', textEntries: [] }) };
}

/** Who changes a chatbot, for the audit log: a member, or an API key (no user; its id in `details`). */
export interface ChatbotChanger {
  actor: { userId: string; workspaceId: string; clientIp: string };
  details?: object;
}

/**
 * Applies an owner's changes to a chatbot (each face's UpdateChatbot fields), with a change of its
 * model checked first against what the workspace may choose and recorded in its audit log once stored.
 */
export async function updateChatbot(
  clients: Clients,
  catalogue: ModelCatalogue,
  changer: ChatbotChanger,
  chatbotId: string,
  changes: Omit<MessageInitShape<typeof UpdateChatbotRequestSchema>, '$typeName' | 'ownerId' | 'chatbotId' | 'model'>,
  model: ModelChoiceInput = {},
): Promise<ChatbotView> {
  const ownerId = changer.actor.workspaceId;
  const modelChange = await modelChoiceChange(clients, ownerId, model);
  const { chatbot } = await clients.chatbot.updateChatbot({ ownerId, chatbotId, ...changes, ...modelChange });
  const view = chatbotView(chatbot, catalogue);
  if (modelChange.model) await recordModelChange(clients, changer.actor, view.id, view, changer.details);
  return view;
}
