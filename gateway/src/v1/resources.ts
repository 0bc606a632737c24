// The developer API's chatbots, knowledge, conversations and usage: the same service calls and views
// as the dashboard's REST paths (chatbots.ts, conversations.ts, usage.ts; the services own every rule
// on the values), answered in the API's shapes (schemas.ts): `id` fields, lists as `{ data }`, pages
// with `nextCursor`. The webhook routes are webhooks.ts's, registered with these.
import type { Chatbot as ChatbotMessage } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { Conversation as ConversationMessage } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { Code, ConnectError, forbidden, invalid, notFound } from '@parley/common/rpc-errors.ts';
import { chatbotView, embedSettingsChange, languageChange, updateChatbot, voiceChange } from '../features/chatbots/chatbots.ts';
import {
  knowledgeBaseView,
  maxPagesField,
  textEntryResultView,
  textEntryView,
  type TextEntryView,
} from '../features/knowledge/knowledge.ts';
import { clientIp } from '@parley/common/http.ts';
import { workspaceModels } from '../features/models/models.ts';
import type { Clients } from '../http/clients.ts';
import { conversationView } from '../features/conversations/conversations.ts';
import { readKnowledgeUpload } from '../features/knowledge/knowledge-upload.ts';
import { loadUsageReport, money, parseUsageQuery, restUsageReport } from '../features/usage/usage.ts';
import { CHATBOT_NOT_FOUND, keyReaches, pageLimit, type ApiV1Options, type On } from './call.ts';
import { webhookRoutes } from './webhooks.ts';
import { CONVERSATION_NOT_FOUND } from '@parley/common/not-found.ts';

export { CONVERSATION_NOT_FOUND };

export const KEY_KEPT_TO_CHATBOTS = 'This API key is kept to some chatbots: it cannot create chatbots.';
export const USAGE_NEEDS_CHATBOT = 'This API key is kept to some chatbots: give chatbotId, one of them.';
export const CURSOR_INVALID = 'cursor is not valid: pass the nextCursor of the previous page';

/** A chatbot as the API shows it: settings without the dashboard's appearance, visitor limits, lead form, handoff and privacy. */
export function apiChatbot(view: ReturnType<typeof chatbotView>) {
  const { knowledgeBase: _kb, appearance: _a, limits: _l, leadForm: _f, handoff: _h, privacy: _p, ...rest } = view;
  return rest;
}

/** The entry added last (the answer of an add that returns the whole knowledge base). */
const newest = (entries: TextEntryView[]): TextEntryView =>
  entries.reduce((a, b) => (b.createdAt > a.createdAt || (b.createdAt === a.createdAt && b.id > a.id) ? b : a));

export function resourceRoutes(on: On, opts: ApiV1Options): void {
  const { clients, catalogue } = opts;
  const api = (message: ChatbotMessage | undefined) => apiChatbot(chatbotView(message, catalogue));

  on('GET /api/v1/chatbots', async ({ res, key, ownerId }) => {
    const { chatbots } = await clients.chatbot.listChatbots({ ownerId, includeKnowledgeBase: false });
    res.json({ data: chatbots.filter((c) => keyReaches(key, c.id)).map(api) });
  });

  on('POST /api/v1/chatbots', async ({ res, key, ownerId, body }) => {
    if (key.chatbotIds.size > 0) throw forbidden(KEY_KEPT_TO_CHATBOTS);
    const { chatbot } = await clients.chatbot.createChatbot({ ownerId, name: body.name });
    res.status(201).json(api(chatbot));
  });

  on('GET /api/v1/chatbots/:id', async ({ req, res, ownerId }) => {
    const { chatbot } = await clients.chatbot.getChatbot({ ownerId, chatbotId: String(req.params.id) });
    res.json(api(chatbot));
  });

  on('GET /api/v1/models', async ({ res, ownerId }) => {
    res.json({ data: await workspaceModels(clients, ownerId) });
  });

  on('PATCH /api/v1/chatbots/:id', async ({ req, res, key, ownerId, body }) => {
    const changes = {
      name: body.name,
      isActive: body.isActive,
      ...languageChange(body.language),
      ...voiceChange({
        instructions: body.instructions,
        temperature: body.temperature,
        welcomeMessage: body.welcomeMessage,
        suggestedQuestions: body.suggestedQuestions,
        noAnswerMessage: body.noAnswerMessage,
      }),
      ...embedSettingsChange({ allowedDomains: body.allowedDomains, standalonePage: body.standalonePage }),
    };
    // A key is no member: the audit log names it instead.
    const changer = { actor: { userId: '', workspaceId: ownerId, clientIp: clientIp(req) }, details: { apiKeyId: key.apiKeyId } };
    const model = { modelId: body.modelId, fallbackModelId: body.fallbackModelId };
    res.json(apiChatbot(await updateChatbot(clients, catalogue, changer, String(req.params.id), changes, model)));
  });

  on('DELETE /api/v1/chatbots/:id', async ({ req, res, ownerId }) => {
    const chatbotId = String(req.params.id);
    await clients.chatbot.deleteChatbot({ ownerId, chatbotId });
    res.json({ id: chatbotId, deleted: true });
  });

  on('GET /api/v1/chatbots/:id/knowledge', async ({ req, res, ownerId }) => {
    const { chatbot } = await clients.chatbot.getChatbot({ ownerId, chatbotId: String(req.params.id) });
    res.json({ data: knowledgeBaseView(chatbot?.knowledgeBase).textEntries });
  });

  on('POST /api/v1/chatbots/:id/knowledge/text', async ({ req, res, ownerId, body }) => {
    const { knowledgeBase } = await clients.chatbot.addTextEntry({ ownerId, chatbotId: String(req.params.id), text: body.text });
    res.status(201).json({ entry: newest(knowledgeBaseView(knowledgeBase).textEntries) });
  });

  on('POST /api/v1/chatbots/:id/knowledge/files', async ({ req, res, ownerId }) => {
    const file = await readKnowledgeUpload(req, opts.maxUploadBytes);
    const added = await clients.chatbot.addFileEntry(
      { ownerId, chatbotId: String(req.params.id), fileName: file.name, content: file.content },
      { timeoutMs: opts.uploadTimeoutMs },
    );
    res.status(202).json({ entry: textEntryResultView(added).entry });
  });

  on('POST /api/v1/chatbots/:id/knowledge/urls', async ({ req, res, ownerId, body }) => {
    const added = await clients.chatbot.addUrlEntry({
      ownerId,
      chatbotId: String(req.params.id),
      url: body.url,
      crawl: body.crawl ?? false,
      maxPages: maxPagesField(body.maxPages),
    });
    res.status(202).json({ entry: textEntryView(added.entry) });
  });

  on('POST /api/v1/chatbots/:id/knowledge/qa', async ({ req, res, ownerId, body }) => {
    const added = await clients.chatbot.addQaEntry({
      ownerId,
      chatbotId: String(req.params.id),
      question: body.question,
      answer: body.answer,
    });
    res.status(201).json({ entry: textEntryView(added.entry) });
  });

  on('DELETE /api/v1/chatbots/:id/knowledge/:entryId', async ({ req, res, ownerId }) => {
    const entryId = String(req.params.entryId);
    await clients.chatbot.deleteTextEntry({ ownerId, chatbotId: String(req.params.id), entryId });
    res.json({ id: entryId, deleted: true });
  });

  on('GET /api/v1/chatbots/:id/conversations', async ({ req, res, ownerId, query }) => {
    // Paged by the chat service, newest first by when each began, then id: a conversation begun while
    // paging comes first and never shifts the pages after it; one that gets new messages keeps its place.
    const { conversations, nextCursor } = await clients.chat.listConversations({
      ownerId,
      chatbotId: String(req.params.id),
      limit: pageLimit(query.limit),
      cursor: query.cursor ?? '',
    });
    res.json({ data: conversations.map(apiConversation), nextCursor: nextCursor || null });
  });

  on('GET /api/v1/chatbots/:id/conversations/:conversationId', async ({ req, res, ownerId }) => {
    const found = await findConversation(clients, ownerId, String(req.params.id), String(req.params.conversationId));
    res.json(apiConversation(found));
  });

  on('GET /api/v1/chatbots/:id/conversations/:conversationId/messages', async ({ req, res, ownerId, query }) => {
    const limit = pageLimit(query.limit);
    const chatbotId = String(req.params.id);
    // Messages are only ever appended, oldest first: the cursor is how many were read.
    const offset = query.cursor === undefined ? 0 : readOffset(query.cursor);
    const found = await findConversation(clients, ownerId, chatbotId, String(req.params.conversationId));
    const messages = conversationView(found).messages;
    const page = messages.slice(offset, offset + limit);
    res.json({
      data: page.map((m, i) => ({
        id: m.id ?? `${found.sessionId}:${offset + i}`,
        role: m.role,
        content: m.content,
        authorName: m.authorName,
        createdAt: m.timestamp,
        rating: m.rating,
        sources: m.sources,
        model: m.model,
        fallback: m.fallback,
      })),
      nextCursor: messages.length > offset + limit ? writeOffset(offset + limit) : null,
    });
  });

  on('GET /api/v1/usage', async ({ res, key, ownerId, query }) => {
    if (key.chatbotIds.size > 0) {
      if (!query.chatbotId) throw forbidden(USAGE_NEEDS_CHATBOT);
      if (!keyReaches(key, query.chatbotId)) throw notFound(CHATBOT_NOT_FOUND);
    }
    const range = parseUsageQuery(query);
    const [view, exists] = await Promise.all([
      loadUsageReport(clients, ownerId, range),
      range.chatbotId === undefined ? true : chatbotExists(clients, ownerId, range.chatbotId),
    ]);
    // Another workspace's chatbot (or none) is 404, as on every route; a deleted chatbot of the
    // workspace still shows its usage, which billing keeps.
    if (range.chatbotId !== undefined && !exists && !view.usageByChatbot.some((c) => c.chatbotId === range.chatbotId))
      throw notFound(CHATBOT_NOT_FOUND);
    const report = restUsageReport(view);
    res.json({
      totalCost: report.overallUsage.totalCost,
      totalTokens: report.overallUsage.totalTokens,
      totalRequests: report.overallUsage.totalRequests,
      daily: report.dailyUsage,
      chatbots: report.usageByChatbot,
      // Each answer's cost, and the key it was asked through (null: the public chat).
      recentRequests: view.recentRequests.map((r) => ({
        requestId: r.requestId,
        timestamp: r.timestamp,
        chatbotId: r.chatbot?._id ?? null,
        apiKeyId: r.apiKeyId,
        ownKey: r.ownKey,
        totalTokens: r.totalTokens,
        totalCost: money(r.totalCost),
      })),
    });
  });

  webhookRoutes(on, opts);
}

/** Whether the chatbot is the workspace's now (an id that names no chatbot of it is not). */
async function chatbotExists(clients: Clients, ownerId: string, chatbotId: string): Promise<boolean> {
  try {
    return (await clients.chatbot.getChatbot({ ownerId, chatbotId })).chatbot !== undefined;
  } catch (err) {
    if (err instanceof ConnectError && (err.code === Code.NotFound || err.code === Code.InvalidArgument)) return false;
    throw err;
  }
}

/** A conversation with its messages, by the id the API gives it (its session id: the one POST /chat continues). */
async function findConversation(clients: Clients, ownerId: string, chatbotId: string, id: string): Promise<ConversationMessage> {
  const { conversation } = await clients.chat.getConversation({ ownerId, chatbotId, conversationId: '', sessionId: id });
  if (!conversation) throw notFound(CONVERSATION_NOT_FOUND);
  return conversation;
}

/** A conversation as the API shows it, named by its session id. */
function apiConversation(c: ConversationMessage) {
  const v = conversationView(c);
  return {
    id: v.sessionId,
    createdAt: v.createdAt,
    updatedAt: v.updatedAt,
    visitorId: v.visitorId,
    visitorName: v.visitorName,
    visitorEmail: c.visitorEmail || null,
    verifiedUserId: v.verifiedUserId,
    verifiedEmail: v.verifiedEmail,
    messageCount: v.messageCount,
  };
}

const writeOffset = (offset: number) => Buffer.from(`m${offset}`).toString('base64url');
function readOffset(raw: string): number {
  const match = /^m(\d{1,9})$/.exec(Buffer.from(raw, 'base64url').toString('utf8'));
  if (!match) throw invalid(CURSOR_INVALID);
  return Number(match[1]);
}
