// The ChatService over ConnectRPC: maps proto messages to the use cases and back, nothing more.
import type { ConnectRouter } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  AnsweringModelSchema,
  ChatMessageSchema,
  ChatService,
  ConversationSchema,
  HandoffStateSchema,
  InboxItemSchema,
  LeadSchema,
  OfferedModelSchema,
  SendMessageResponseSchema,
  ActionConfirmationSchema,
  type AnsweringModel,
  type Conversation as ConversationMessage,
} from '@parley/proto/parley/chat/v1/chat_pb.js';
import { currentRole } from '@parley/common/context.ts';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { chatbotAccess } from './core/history-access.ts';
import type { Conversation, Message, QuestionCluster } from './generated/prisma/client.ts';
import { getConversation } from './conversations/get-conversation.ts';
import { readStoredSources } from './public-chat/message-sources.ts';
import { listConversationPage, listConversations, type ConversationsDeps } from './conversations/list-conversations.ts';
import { exportConversations, type ExportDeps } from './export/export-conversations.ts';
import { getAnalytics, getAnalyticsSummary } from './insights/get-analytics.ts';
import {
  answerUnansweredQuestion,
  countUnansweredQuestions,
  dismissUnansweredQuestion,
  listUnansweredQuestions,
} from './insights/unanswered-questions.ts';
import { rateMessage, type RateMessageDeps } from './feedback/rate-message.ts';
import { loadChatbotProfile, type ChatbotProfileDeps } from './public-chat/chatbot-profile.ts';
import { createChallenge } from './public-chat/create-challenge.ts';
import { countedAnswer, countedStream } from './public-chat/answer-metrics.ts';
import { sendMessage, streamMessage, type PublicChatDeps, type SendMessageResult } from './public-chat/send-message.ts';
import type { Channel } from './public-chat/channels/channel.ts';
import { parseApiKeyId } from './core/message-input.ts';
import { developerApi } from './public-chat/channels/developer-api.ts';
import { openAICompatible } from './public-chat/channels/openai-compatible.ts';
import { publicPage } from './public-chat/channels/public-page.ts';
import { widget } from './public-chat/channels/widget.ts';
import type { HandoffView } from './core/handoff.ts';
import {
  addConversationNote,
  claimConversation,
  closeConversation,
  handBackConversation,
  replyToConversation,
} from './handoff/agent-actions.ts';
import type { HandoffDeps } from './handoff/handoff-deps.ts';
import { countWaiting, getInboxConversation, listInbox, watchInbox } from './handoff/inbox.ts';
import type { InboxItemView, MessageView } from './handoff/live-events.ts';
import { requestHandoff } from './handoff/request-handoff.ts';
import { summarizeConversation } from './handoff/summarize-conversation.ts';
import { watchConversation } from './handoff/watch-conversation.ts';
import { leadMethods } from './leads/rpc.ts';
import { qualityMethods } from './quality/rpc.ts';
import type { RunDeps } from './quality/runs.ts';
import { providerKeyMethods, type ProviderKeyRpcDeps } from './provider-keys/rpc.ts';
import { retentionMethods } from './conversations/retention.ts';
import { channelMethods, type ChannelRpcDeps } from './channels/rpc.ts';
import type { OfferedModels } from './models/offered-models.ts';
import { answeredBy, type ModelNames } from './conversations/answered-by.ts';

export type ChatRpcDeps = PublicChatDeps &
  ChatbotProfileDeps &
  ConversationsDeps &
  Pick<ExportDeps, 'exportDb'> &
  Pick<RateMessageDeps, 'webhooks'> &
  ProviderKeyRpcDeps &
  ChannelRpcDeps & {
    /** Humans in the loop (docs/adr/0034-humans-in-the-loop.md). */
    handoffCore: HandoffDeps;
    /** The catalogue's models this deployment offers (ListModels). */
    offered: OfferedModels;
    /** The whole catalogue, to name the model that gave a stored answer (even one no longer offered). */
    catalogue: ModelNames;
    /** The quality loop's test cases and runs (docs/adr/0050-quality-loop.md). */
    quality: RunDeps;
  };

const IDENTITY_UNAVAILABLE = 'Identity verification is unavailable right now. Try again shortly.';

const identityOrFail = (deps: ChatRpcDeps) => {
  if (!deps.identity) throw new ConnectError('identity verification is not set up', Code.Unimplemented);
  return deps.identity;
};

const toHandoffState = (v: HandoffView) =>
  create(HandoffStateSchema, {
    status: v.status,
    agentName: v.agentName,
    waitingSince: v.waitingSince ? timestampFromDate(v.waitingSince) : undefined,
    timedOut: v.timedOut,
  });

/** The model that gave an answer and whether it was the fallback, for the owner's views only. */
function answeringModel(usage: unknown, names: ModelNames): { answeredBy?: AnsweringModel; fallback?: boolean } {
  const by = answeredBy(usage, names);
  return by ? { answeredBy: create(AnsweringModelSchema, by.model), fallback: by.fallback } : {};
}

const toChatMessage = (m: MessageView, answered: ReturnType<typeof answeringModel> = {}) =>
  create(ChatMessageSchema, {
    id: m.id,
    role: m.role,
    content: m.content,
    timestamp: timestampFromDate(m.createdAt),
    authorName: m.authorName,
    sources: m.sources,
    ...answered,
  });

const toInboxItem = (i: InboxItemView) =>
  create(InboxItemSchema, {
    conversationId: i.conversationId,
    chatbotId: i.chatbotId,
    state: toHandoffState(i.state),
    assigneeId: i.assigneeId,
    visitorName: i.visitorName,
    visitorEmail: i.visitorEmail,
    lastMessage: i.lastMessage,
    lastMessageAt: i.lastMessageAt ? timestampFromDate(i.lastMessageAt) : undefined,
    messageCount: i.messageCount,
    lastVisitorMessage: i.lastVisitorMessage,
    verifiedUserId: i.verifiedUserId,
    channel: i.channel,
    reason: i.reason,
  });

const toSendMessageResponse = (r: SendMessageResult) =>
  create(SendMessageResponseSchema, {
    message: r.message,
    sessionId: r.sessionId,
    sources: r.sources,
    messageId: r.messageId,
    handoff: r.handoff ? toHandoffState(r.handoff) : undefined,
    offerHandoff: r.offerHandoff,
    showLeadForm: r.showLeadForm,
    unanswered: r.unanswered,
    usage: r.usage ?? undefined,
    confirmation: r.confirmation
      ? create(ActionConfirmationSchema, { ...r.confirmation, expiresAt: timestampFromDate(new Date(r.confirmation.expiresAt)) })
      : undefined,
  });

/**
 * The channel a message arrives on, told by what the gateway sends: a developer API key (which the
 * gateway checked), with the client's own history for the OpenAI-compatible endpoint; else a
 * browser, inside the widget's frame or on the public page. An OpenAI-compatible call with no
 * earlier messages reads as the developer API's first message of a new conversation, which has the
 * same (empty) history.
 */
export function channelOf(req: { apiKeyId: string; history: readonly unknown[]; embedded: boolean }): Channel {
  if (parseApiKeyId(req.apiKeyId)) return req.history.length ? openAICompatible : developerApi;
  return req.embedded ? widget : publicPage;
}
const toOfferedModels = (offered: OfferedModels) =>
  offered.models.map((m) =>
    create(OfferedModelSchema, {
      id: m.id,
      provider: m.provider,
      displayName: m.displayName,
      contextWindow: m.contextWindow,
      maxOutputTokens: m.maxOutputTokens,
      inputPricePerMillion: m.inputPricePerMillion,
      outputPricePerMillion: m.outputPricePerMillion,
      streaming: m.capabilities.streaming,
      tools: m.capabilities.tools,
      images: m.capabilities.images,
      plans: [...m.plans],
      isDefault: m.id === offered.defaultModel?.id,
    }),
  );

function toConversationMessage(c: Conversation, messages: Message[] = [], names?: ModelNames): ConversationMessage {
  return create(ConversationSchema, {
    id: c.id,
    sessionId: c.sessionId,
    createdAt: timestampFromDate(c.createdAt),
    updatedAt: timestampFromDate(c.updatedAt),
    userIp: c.userIp ?? '',
    userAgent: c.userAgent ?? '',
    visitorId: c.visitorId ?? '',
    visitorName: c.visitorName ?? '',
    visitorEmail: c.visitorEmail ?? '',
    verifiedUserId: c.verifiedUserId ?? '',
    verifiedEmail: c.verifiedEmail ?? '',
    channel: c.channel ?? '',
    messageCount: c.messageCount,
    messages: messages.map((m) =>
      create(ChatMessageSchema, {
        id: m.id.toString(),
        role: m.role,
        content: m.content,
        timestamp: timestampFromDate(m.createdAt),
        rating: m.rating ?? '',
        sources: readStoredSources(m.sources),
        authorName: m.authorName ?? '',
        ...(names ? answeringModel(m.usage, names) : {}),
      }),
    ),
    handoffStatus: c.handoffStatus,
  });
}

const toUnansweredQuestion = (g: QuestionCluster) => ({
  id: g.id,
  question: g.question,
  count: g.count,
  examples: g.examples,
  lastSeen: timestampFromDate(g.lastSeen),
  status: g.status,
  answerEntryId: g.answerEntryId ?? '',
  reason: g.reason ?? '',
});

export function chatRoutes(deps: ChatRpcDeps) {
  return (router: ConnectRouter) => {
    router.service(ChatService, {
      ...leadMethods(deps),
      ...qualityMethods(deps),
      ...providerKeyMethods(deps),
      async createIdentitySecret(req) {
        const { chatbotId } = await chatbotAccess(deps, req, IDENTITY_UNAVAILABLE);
        const { secret, createdAt } = await identityOrFail(deps).create(req.ownerId.trim(), chatbotId);
        return { secret, createdAt: timestampFromDate(createdAt) };
      },
      async getIdentityVerification(req) {
        const { chatbotId } = await chatbotAccess(deps, req, IDENTITY_UNAVAILABLE);
        const createdAt = await identityOrFail(deps).createdAt(chatbotId);
        return { enabled: createdAt !== null, createdAt: createdAt ? timestampFromDate(createdAt) : undefined };
      },
      ...retentionMethods(deps),
      ...channelMethods(deps),
      async getPublicChatbot(req) {
        const profile = await loadChatbotProfile(deps, req);
        return {
          name: profile.name,
          profilePicture: profile.profilePicture,
          welcomeMessage: profile.welcomeMessage,
          suggestedQuestions: profile.suggestedQuestions,
          appearance: profile.appearance,
          allowedDomains: profile.allowedDomains,
          proofOfWork: profile.proofOfWork,
          standalonePage: profile.standalonePage,
          leadForm: profile.leadForm,
          handoff: profile.handoff,
        };
      },
      async createChallenge(req) {
        const { algorithm, challenge, maxNumber, salt, signature } = await createChallenge(deps, req);
        return { algorithm, challenge, maxNumber: BigInt(maxNumber), salt, signature };
      },
      async sendMessage(req) {
        return toSendMessageResponse(await countedAnswer('json', () => sendMessage(deps, req, channelOf(req))));
      },
      async *streamMessage(req) {
        for await (const event of countedStream(streamMessage(deps, req, channelOf(req)))) {
          yield 'delta' in event
            ? { event: { case: 'delta' as const, value: event.delta } }
            : 'status' in event
              ? { event: { case: 'status' as const, value: event.status } }
              : { event: { case: 'done' as const, value: toSendMessageResponse(event.done) } };
        }
      },
      async rateMessage(req) {
        return rateMessage(deps, req);
      },
      async listConversations(req) {
        if (req.limit !== 0) {
          const page = await listConversationPage(deps, {
            ownerId: req.ownerId,
            chatbotId: req.chatbotId,
            limit: req.limit,
            cursor: req.cursor,
          });
          return { conversations: page.conversations.map((c) => toConversationMessage(c)), nextCursor: page.nextCursor };
        }
        const conversations = await listConversations(deps, { ownerId: req.ownerId, chatbotId: req.chatbotId });
        return { conversations: conversations.map((c) => toConversationMessage(c)), nextCursor: '' };
      },
      async getConversation(req) {
        const conversation = await getConversation(deps, {
          ownerId: req.ownerId,
          chatbotId: req.chatbotId,
          conversationId: req.conversationId,
          sessionId: req.sessionId,
        });
        return { conversation: toConversationMessage(conversation, conversation.messages, deps.catalogue) };
      },
      async getAnalytics(req) {
        return { analytics: await getAnalytics(deps, req, { role: currentRole() }) };
      },
      async getAnalyticsSummary(req) {
        return { analytics: await getAnalyticsSummary(deps, req, { role: currentRole() }) };
      },
      async listUnansweredQuestions(req) {
        const questions = await listUnansweredQuestions(deps, req);
        return { questions: questions.map(toUnansweredQuestion) };
      },
      async answerUnansweredQuestion(req) {
        return { question: toUnansweredQuestion(await answerUnansweredQuestion(deps, req)) };
      },
      async dismissUnansweredQuestion(req) {
        return { question: toUnansweredQuestion(await dismissUnansweredQuestion(deps, req)) };
      },
      async countUnansweredQuestions(req) {
        return { openByChatbot: await countUnansweredQuestions(deps, req) };
      },
      async requestHandoff(req) {
        return { state: toHandoffState(await requestHandoff(deps.handoffCore, req)) };
      },
      async *watchConversation(req, ctx) {
        for await (const event of watchConversation(deps.handoffCore, req, ctx.signal)) {
          yield event.kind === 'message'
            ? { event: { case: 'message' as const, value: toChatMessage(event.message) } }
            : { event: { case: 'state' as const, value: toHandoffState(event.state) } };
        }
      },
      async listInbox(req) {
        const inbox = await listInbox(deps.handoffCore, req);
        return { waiting: inbox.waiting.map(toInboxItem), open: inbox.open.map(toInboxItem) };
      },
      async countWaiting(req) {
        return { waiting: await countWaiting(deps.handoffCore, req) };
      },
      async getInboxConversation(req) {
        const c = await getInboxConversation(deps.handoffCore, req);
        return {
          item: toInboxItem(c.item),
          conversation: create(ConversationSchema, {
            id: c.row.id,
            sessionId: c.row.sessionId,
            createdAt: timestampFromDate(c.createdAt),
            updatedAt: timestampFromDate(c.updatedAt),
            userIp: c.userIp ?? '',
            userAgent: c.userAgent ?? '',
            messageCount: c.row.messageCount,
            messages: c.messages.map((m) => toChatMessage(m, answeringModel(m.usage, deps.catalogue))),
            visitorId: c.visitorId ?? '',
            visitorName: c.row.visitorName ?? '',
            visitorEmail: c.row.visitorEmail ?? '',
            handoffStatus: c.row.handoffStatus,
            verifiedUserId: c.row.verifiedUserId ?? '',
            verifiedEmail: c.row.verifiedEmail ?? '',
          }),
          summary: c.summary,
          lead: c.lead
            ? create(LeadSchema, {
                id: c.lead.id,
                chatbotId: c.lead.chatbotId,
                conversationId: c.lead.conversationId,
                name: c.lead.name ?? '',
                email: c.lead.email ?? '',
                phone: c.lead.phone ?? '',
                consented: c.lead.consented,
                consentText: c.lead.consentText ?? '',
                source: c.lead.source,
                createdAt: timestampFromDate(c.lead.createdAt),
              })
            : undefined,
        };
      },
      async *watchInbox(req, ctx) {
        for await (const item of watchInbox(deps.handoffCore, req, ctx.signal)) yield { item: toInboxItem(item) };
      },
      async claimConversation(req) {
        return { item: toInboxItem(await claimConversation(deps.handoffCore, req)) };
      },
      async replyToConversation(req) {
        const { message, item } = await replyToConversation(deps.handoffCore, req);
        return { message: toChatMessage(message), item: toInboxItem(item) };
      },
      async addConversationNote(req) {
        return { message: toChatMessage(await addConversationNote(deps.handoffCore, req)) };
      },
      async handBackConversation(req) {
        return { item: toInboxItem(await handBackConversation(deps.handoffCore, req)) };
      },
      async closeConversation(req) {
        return { item: toInboxItem(await closeConversation(deps.handoffCore, req)) };
      },
      async summarizeConversation(req) {
        return { summary: await summarizeConversation(deps.handoffCore, req) };
      },
      listModels() {
        return { models: toOfferedModels(deps.offered) };
      },
      async *exportConversations(req) {
        // Access and dates are checked before the first page, so a refusal arrives before any row.
        const pages = await exportConversations(deps, req);
        for await (const rows of pages) {
          yield {
            rows: rows.map((r) => ({
              ...r,
              userIp: r.userIp ?? '',
              userAgent: r.userAgent ?? '',
              timestamp: timestampFromDate(r.timestamp),
              rating: r.rating ?? '',
              visitorId: r.visitorId ?? '',
              visitorName: r.visitorName ?? '',
              authorName: r.authorName ?? '',
            })),
          };
        }
      },
    });
  };
}
