// The ChatbotService and the WebhookService over ConnectRPC: map proto messages to the use cases and back, nothing more.
import type { ConnectRouter } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  AppearanceSchema,
  ChatbotSchema,
  EmbeddingSchema,
  ChatbotService,
  HandoffSchema,
  PrivacySchema,
  LeadFormSchema,
  ModelChoiceSchema,
  EntrySourceSchema,
  KnowledgeBaseSchema,
  KnowledgePassageSchema,
  PublicChatbotSchema,
  QaMatchSchema,
  TextEntrySchema,
  VisitorLimitsSchema,
  VoiceSchema,
  type Chatbot as ChatbotMessage,
  type KnowledgeBase as KnowledgeBaseMessage,
  type TextEntry as TextEntryMessage,
} from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import {
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  WebhookService,
} from '@parley/proto/parley/chatbot/v1/webhooks_pb.js';
import { languageFields, readLanguage, type LanguageName } from '@parley/proto/language.ts';
import type { Chatbot, PrismaClient, TextEntry, WebhookEndpoint } from './generated/prisma/client.ts';
import { listDeliveries, redeliver, sendTestEvent, type DeliveryWithAttempts } from './webhooks/deliveries.ts';
import { createEndpoint, deleteEndpoint, listEndpoints, rollSecret, updateEndpoint } from './webhooks/endpoints.ts';
import type { WebhookDeps } from './webhooks/webhook-deps.ts';
import { webhookRetentionMethods } from './webhooks/webhook-retention.ts';
import { createChatbot, type CreateChatbotDeps } from './chatbots/create-chatbot.ts';
import { getPublicChatbot } from './chatbots/get-public-chatbot.ts';
import { listChatbots } from './chatbots/list-chatbots.ts';
import { findOwnedChatbot } from './core/owned-chatbot.ts';
import { ownerChanges, type EntryChange, type OwnerChangesDeps } from './owner-changes.ts';
import { loadKnowledgeBase, loadKnowledgeBases, type KnowledgeBase } from './knowledge/knowledge-base.ts';
import { getPromptKnowledge, type PromptKnowledgeDeps } from './prompt-knowledge.ts';
import { modelChoiceOf } from './chatbots/model-choice.ts';
import { actionRoutes, toActionToolMessage } from './actions/action-rpc.ts';
import type { ActionDeps } from './actions/actions.ts';
import { mcpServerRoutes, toMcpToolMessage } from './actions/mcp-rpc.ts';
import type { McpModelTool } from './actions/mcp-servers.ts';
import type { ActionDefinition } from './actions/action-definition-schema.ts';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';

export type ChatbotRpcDeps = CreateChatbotDeps &
  OwnerChangesDeps &
  PromptKnowledgeDeps & {
    /** The search pool (see knowledge/retrieve.ts), for tests that look at its sessions. */
    search: PrismaClient;
    webhooks: WebhookDeps;
    actions: ActionDeps;
  };

/** The stored language (always one of LANGUAGE_NAMES: chatbot-input.ts validates every write), in both fields. */
const languageOf = (c: Chatbot) => languageFields(c.language as LanguageName);

const voiceOf = (c: Chatbot) =>
  create(VoiceSchema, {
    instructions: c.instructions,
    temperature: c.temperature ?? undefined,
    welcomeMessage: c.welcomeMessage,
    suggestedQuestions: c.suggestedQuestions,
    noAnswerMessage: c.noAnswerMessage,
    answerInVisitorLanguage: c.answerInVisitorLanguage,
  });

// Appearance, where it may run and what visitors may spend (embed-settings.ts), the lead form and
// handoff (lead-handoff-settings.ts), privacy (privacy-settings.ts); hideBranding and handoff as the row holds them (the public
// lookup has already read them as the public sees them).
const embedSettingsOf = (c: Chatbot) => ({
  appearance: create(AppearanceSchema, {
    primaryColor: c.primaryColor,
    position: c.position,
    launcherLabel: c.launcherLabel,
    hideBranding: c.hideBranding,
  }),
  embedding: create(EmbeddingSchema, { allowedDomains: c.allowedDomains ?? [], standalonePage: c.standalonePage }),
  limits: create(VisitorLimitsSchema, {
    visitorMessagesPerDay: c.visitorMessagesPerDay ?? undefined,
    dailySpendLimit: c.dailySpendLimit?.toFixed(2),
    proofOfWork: c.proofOfWork,
  }),
  leadForm: create(LeadFormSchema, {
    name: c.leadName,
    email: c.leadEmail,
    phone: c.leadPhone,
    trigger: c.leadTrigger,
    afterMessages: c.leadAfterMessages,
    consentText: c.leadConsentText,
  }),
  handoff: create(HandoffSchema, { enabled: c.handoffEnabled, timeoutSeconds: c.handoffTimeoutSeconds }),
  privacy: create(PrivacySchema, {
    redactPersonalData: c.redactPersonalData,
    keepOriginal: c.keepOriginalWords,
    patterns: c.redactionPatterns,
  }),
});

/** The model that answers and its fallback, as the catalogue reads the row (model-choice.ts). */
const modelOf = (c: Chatbot, catalogue: ModelCatalogue) => create(ModelChoiceSchema, modelChoiceOf(c, catalogue));

function toPublicChatbotMessage(c: Chatbot, catalogue: ModelCatalogue, actions: ActionDefinition[] = [], mcpTools: McpModelTool[] = []) {
  return create(PublicChatbotSchema, {
    id: c.id,
    ownerId: c.ownerId,
    name: c.name,
    profilePicture: c.profilePicture ?? '',
    ...languageOf(c),
    knowledgeChars: BigInt(c.knowledgeChars),
    voice: voiceOf(c),
    qaPairs: c.qaPairs,
    ...embedSettingsOf(c),
    model: modelOf(c, catalogue),
    actions: actions.map(toActionToolMessage),
    mcpTools: mcpTools.map(toMcpToolMessage),
  });
}

export function toTextEntryMessage(e: TextEntry): TextEntryMessage {
  return create(TextEntrySchema, {
    id: e.id,
    title: e.title,
    content: e.content,
    createdAt: timestampFromDate(e.createdAt),
    updatedAt: timestampFromDate(e.updatedAt),
    source: create(EntrySourceSchema, { type: e.sourceType, name: e.sourceName ?? '', url: e.sourceUrl ?? '' }),
    status: e.status,
    error: e.error ?? '',
    question: e.question ?? '',
    autoSync: e.autoSync,
    lastSyncedAt: e.lastSyncedAt ? timestampFromDate(e.lastSyncedAt) : undefined,
    lastSyncChanged: e.lastSyncChanged ?? undefined,
  });
}

export function toKnowledgeBaseMessage(kb: KnowledgeBase): KnowledgeBaseMessage {
  return create(KnowledgeBaseSchema, { text: kb.text, textEntries: kb.textEntries.map(toTextEntryMessage) });
}

const toEntryChangeMessage = ({ entry, knowledgeBase }: EntryChange) => ({
  entry: toTextEntryMessage(entry),
  knowledgeBase: toKnowledgeBaseMessage(knowledgeBase),
});

export function toChatbotMessage(c: Chatbot, catalogue: ModelCatalogue, kb?: KnowledgeBase): ChatbotMessage {
  return create(ChatbotSchema, {
    id: c.id,
    uniqueId: c.uniqueId,
    ownerId: c.ownerId,
    name: c.name,
    profilePicture: c.profilePicture ?? '',
    isActive: c.isActive,
    ...languageOf(c),
    interactions: BigInt(c.interactions),
    lastInteraction: c.lastInteraction ? timestampFromDate(c.lastInteraction) : undefined,
    createdAt: timestampFromDate(c.createdAt),
    updatedAt: timestampFromDate(c.updatedAt),
    knowledgeBase: kb ? toKnowledgeBaseMessage(kb) : undefined,
    voice: voiceOf(c),
    ...embedSettingsOf(c),
    model: modelOf(c, catalogue),
  });
}

export function chatbotRoutes(deps: ChatbotRpcDeps) {
  const { db, catalogue } = deps;
  const changes = ownerChanges(deps);
  return (router: ConnectRouter) => {
    router.service(ChatbotService, {
      async createChatbot(req) {
        return { chatbot: toChatbotMessage(await createChatbot(deps, { ownerId: req.ownerId, name: req.name }), catalogue) };
      },
      async listChatbots(req) {
        const chatbots = await listChatbots(db, req.ownerId);
        const kbs = req.includeKnowledgeBase
          ? await loadKnowledgeBases(
              db,
              chatbots.map((c) => c.id),
            )
          : undefined;
        return { chatbots: chatbots.map((c) => toChatbotMessage(c, catalogue, kbs?.get(c.id))) };
      },
      async getChatbot(req) {
        const chatbot = await findOwnedChatbot(db, { ownerId: req.ownerId, chatbotId: req.chatbotId });
        return { chatbot: toChatbotMessage(chatbot, catalogue, await loadKnowledgeBase(db, chatbot.id)) };
      },
      async updateChatbot(req) {
        const { chatbot, knowledgeBase } = await changes.updateChatbot({
          ownerId: req.ownerId,
          chatbotId: req.chatbotId,
          name: req.name,
          isActive: req.isActive,
          language: readLanguage(req),
          voice: req.voice,
          appearance: req.appearance,
          embedding: req.embedding,
          limits: req.limits,
          leadForm: req.leadForm,
          handoff: req.handoff,
          model: req.model,
          privacy: req.privacy,
        });
        return { chatbot: toChatbotMessage(chatbot, catalogue, knowledgeBase) };
      },
      async deleteChatbot(req) {
        await changes.deleteChatbot({ ownerId: req.ownerId, chatbotId: req.chatbotId });
        return {};
      },
      async setProfilePicture(req) {
        return {
          profilePicture: await changes.setProfilePicture({ ownerId: req.ownerId, chatbotId: req.chatbotId, content: req.content }),
        };
      },
      async addTextEntry(req) {
        const knowledgeBase = await changes.addTextEntry({ ownerId: req.ownerId, chatbotId: req.chatbotId, text: req.text });
        return { knowledgeBase: toKnowledgeBaseMessage(knowledgeBase) };
      },
      async deleteTextEntry(req) {
        const knowledgeBase = await changes.deleteTextEntry({ ownerId: req.ownerId, chatbotId: req.chatbotId, entryId: req.entryId });
        return { knowledgeBase: toKnowledgeBaseMessage(knowledgeBase) };
      },
      async getPublicChatbot(req) {
        return { chatbot: toPublicChatbotMessage(await getPublicChatbot(deps, req.uniqueId), catalogue) };
      },
      async getPromptKnowledge(req) {
        const { chatbot, knowledge, passages, wholeKnowledge, qaMatch, actions, mcpTools } = await getPromptKnowledge(deps, {
          uniqueId: req.uniqueId,
          query: req.query,
          budgetChars: req.budgetChars,
          k: req.k,
        });
        return {
          chatbot: toPublicChatbotMessage(chatbot, catalogue, actions, mcpTools),
          knowledge: knowledge.map((p) => create(KnowledgePassageSchema, p)),
          passages,
          wholeKnowledge,
          qaMatch: qaMatch ? create(QaMatchSchema, qaMatch) : undefined,
        };
      },
      async retrieve(req) {
        const chunks = await deps.retrieveChunks({ chatbotId: req.chatbotId, query: req.query, k: req.k });
        return { chunks };
      },
      async addFileEntry(req) {
        return toEntryChangeMessage(
          await changes.addFileEntry({ ownerId: req.ownerId, chatbotId: req.chatbotId, fileName: req.fileName, content: req.content }),
        );
      },
      async addUrlEntry(req) {
        return toEntryChangeMessage(
          await changes.addUrlEntry({
            ownerId: req.ownerId,
            chatbotId: req.chatbotId,
            url: req.url,
            crawl: req.crawl,
            maxPages: req.maxPages,
          }),
        );
      },
      async addQaEntry(req) {
        return toEntryChangeMessage(
          await changes.addQaEntry({ ownerId: req.ownerId, chatbotId: req.chatbotId, question: req.question, answer: req.answer }),
        );
      },
      async refreshEntry(req) {
        return toEntryChangeMessage(await changes.refreshEntry({ ownerId: req.ownerId, chatbotId: req.chatbotId, entryId: req.entryId }));
      },
      async setEntryAutoSync(req) {
        return toEntryChangeMessage(
          await changes.setEntryAutoSync({ ownerId: req.ownerId, chatbotId: req.chatbotId, entryId: req.entryId, autoSync: req.autoSync }),
        );
      },
    });
    webhookRoutes(deps.webhooks)(router);
    actionRoutes(deps.actions)(router);
    mcpServerRoutes(deps.actions)(router);
  };
}

const toWebhookEndpointMessage = (e: WebhookEndpoint) =>
  create(WebhookEndpointSchema, {
    id: e.id,
    url: e.url,
    events: e.events,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    createdAt: timestampFromDate(e.createdAt),
    failingSince: e.failingSince ? timestampFromDate(e.failingSince) : undefined,
  });

const toWebhookDeliveryMessage = (d: DeliveryWithAttempts) =>
  create(WebhookDeliverySchema, {
    id: d.id,
    endpointId: d.endpointId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    responseStatus: d.responseStatus,
    durationMs: d.durationMs,
    responseExcerpt: d.responseExcerpt,
    error: d.error,
    createdAt: timestampFromDate(d.createdAt),
    lastAttemptAt: d.lastAttemptAt ? timestampFromDate(d.lastAttemptAt) : undefined,
    payload: d.payload,
    test: d.test,
    attemptLog: d.attemptLog.map((a) =>
      create(WebhookAttemptSchema, {
        attemptedAt: timestampFromDate(a.attemptedAt),
        responseStatus: a.responseStatus,
        durationMs: a.durationMs,
        error: a.error,
      }),
    ),
  });

/** The WebhookService (webhooks/): endpoints, their delivery log, redelivery and test events. */
function webhookRoutes(deps: WebhookDeps) {
  return (router: ConnectRouter) => {
    router.service(WebhookService, {
      ...webhookRetentionMethods(deps),
      async createWebhookEndpoint(req) {
        const { endpoint, secret } = await createEndpoint(deps, { ownerId: req.ownerId, url: req.url, events: req.events });
        return { endpoint: toWebhookEndpointMessage(endpoint), secret };
      },
      async listWebhookEndpoints(req) {
        return { endpoints: (await listEndpoints(deps.db, req.ownerId)).map(toWebhookEndpointMessage) };
      },
      async updateWebhookEndpoint(req) {
        const endpoint = await updateEndpoint(deps, {
          ownerId: req.ownerId,
          endpointId: req.endpointId,
          url: req.url,
          enabled: req.enabled,
          events: req.events?.types,
        });
        return { endpoint: toWebhookEndpointMessage(endpoint) };
      },
      async deleteWebhookEndpoint(req) {
        await deleteEndpoint(deps, { ownerId: req.ownerId, endpointId: req.endpointId });
        return {};
      },
      async rollWebhookSecret(req) {
        return { secret: await rollSecret(deps, { ownerId: req.ownerId, endpointId: req.endpointId }) };
      },
      async listWebhookDeliveries(req) {
        const page = await listDeliveries(deps, { ownerId: req.ownerId, endpointId: req.endpointId, limit: req.limit, cursor: req.cursor });
        return { deliveries: page.deliveries.map(toWebhookDeliveryMessage), nextCursor: page.nextCursor };
      },
      async redeliverWebhook(req) {
        const delivery = await redeliver(deps, { ownerId: req.ownerId, endpointId: req.endpointId, deliveryId: req.deliveryId });
        return { delivery: toWebhookDeliveryMessage(delivery) };
      },
      async sendTestWebhook(req) {
        const delivery = await sendTestEvent(deps, { ownerId: req.ownerId, endpointId: req.endpointId, eventType: req.eventType });
        return { delivery: toWebhookDeliveryMessage(delivery) };
      },
    });
  };
}
