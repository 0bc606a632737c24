// REST paths (docs/product.md, REST API) for an owner's chatbots, their pictures and knowledge base (typed text, files,
// web pages and Q&A pairs; appearance, allowed domains, visitor limits, the lead form, handoff and privacy), and their
// conversations. Each path acts in the request's workspace (X-Workspace-Id, the personal one without it) with the
// permission its row of this operation table (http/operations.ts) names; another owner's chatbot answers 404 (the
// chatbot service decides, and owns every rule on the values):
//   GET    /api/chatbot                               → [chatbot]
//   POST   /api/chatbot { name }                      → chatbot (201)
//   GET    /api/chatbot/{id}                          → chatbot
//   PUT    /api/chatbot/{id} { name?, isActive?, language?, instructions?, …, privacy? } → chatbot
//   DELETE /api/chatbot/{id}                          → { message }
//   POST   /api/chatbot/{id}/profile-picture          multipart, field profilePicture → { profilePicture }
//   POST   /api/chatbot/{id}/knowledge-base/text { text, append? } → { knowledgeBase }
//   POST   /api/chatbot/{id}/knowledge-base/files     multipart, field file → entry (202; parsed in the background)
//   POST   /api/chatbot/{id}/knowledge-base/urls { url, crawl?, maxPages? } → entry (202)
//   POST   /api/chatbot/{id}/knowledge-base/qa { question, answer } → entry (201)
//   POST   /api/chatbot/{id}/knowledge-base/text-entries/{entryId}/refresh → entry (202)
//   PUT    /api/chatbot/{id}/knowledge-base/text-entries/{entryId} { autoSync } → entry
//   DELETE /api/chatbot/{id}/knowledge-base/text-entries/{entryId} → { knowledgeBase }
//   GET    /api/chatbot/{id}/conversations            → [conversation]
//   GET    /api/chatbot/{id}/conversations/{conversationId} → conversation
// The uploads are rows that read their own body (`multipart`), once the caller is checked.
import { z } from 'zod';
import type { Permission } from '@parley/common/roles.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import {
  chatbotView,
  embedSettingsChange,
  knowledgeBaseView,
  textEntryResultView,
  languageChange,
  maxPagesField,
  restChatbot,
  restKnowledgeBase,
  restTextEntryResult,
  updateChatbot,
  voiceChange,
} from './chatbots.ts';
import { conversationView, restConversation } from '../conversations/conversations.ts';
import { leadSettingsChange } from '../leads/leads.ts';
import { privacyChange, restPrivacyFields } from '../privacy/privacy-settings.ts';
import { operation, type Operation, type OperationDeps } from '../../http/operations.ts';
import { flag, jsonBody, numberOrNull, optionalFlag, optionalText, optionalTextList, optionalWholeNumber, text } from '../../http/input.ts';
import { readKnowledgeUpload } from '../knowledge/knowledge-upload.ts';
import { readPictureUpload } from './picture-upload.ts';

export const APPEND_ONLY = 'append must be true: text is added to the knowledge base as a new entry';
export const CHATBOT_DELETED_MESSAGE = 'Chatbot deleted';

/** An optional nested object of the body; its fields are named by their path ("appearance.position") so the messages say which is wrong. */
const section = <S extends z.ZodRawShape>(name: string, shape: S) => z.object(shape, { error: `${name} must be an object` }).optional();

/** A field of these JSON types, or null; undefined when absent. As typed: the service checks the text. */
const ofTypesOrNull = <T>(name: string, types: ('string' | 'number')[], message: string) =>
  z.custom<T>((value) => (types as string[]).includes(typeof value), `${name} must be ${message}`).nullish();

/** The changes of PUT /api/chatbot/{id}, typed; partial at every level. */
const chatbotChanges = jsonBody({
  name: optionalText('name'),
  isActive: optionalFlag('isActive'),
  language: optionalText('language'),
  instructions: optionalText('instructions'),
  temperature: numberOrNull('temperature'),
  welcomeMessage: optionalText('welcomeMessage'),
  suggestedQuestions: optionalTextList('suggestedQuestions'),
  noAnswerMessage: optionalText('noAnswerMessage'),
  answerInVisitorLanguage: optionalFlag('answerInVisitorLanguage'),
  // The embed settings.
  appearance: section('appearance', {
    // Null: the product's colour.
    primaryColor: ofTypesOrNull<string>('appearance.primaryColor', ['string'], 'a string or null'),
    position: optionalText('appearance.position'),
    launcherLabel: optionalText('appearance.launcherLabel'),
    hideBranding: optionalFlag('appearance.hideBranding'),
  }),
  allowedDomains: optionalTextList('allowedDomains'),
  standalonePage: optionalFlag('standalonePage'),
  limits: section('limits', {
    visitorMessagesPerDay: ofTypesOrNull<number>('limits.visitorMessagesPerDay', ['number'], 'a number or null'),
    dailySpendLimit: ofTypesOrNull<number | string>('limits.dailySpendLimit', ['number', 'string'], 'a number, a string or null'),
    proofOfWork: optionalFlag('limits.proofOfWork'),
  }),
  // The lead form and handoff (docs/adr/0034-humans-in-the-loop.md).
  leadForm: section('leadForm', {
    name: optionalText('leadForm.name'),
    email: optionalText('leadForm.email'),
    phone: optionalText('leadForm.phone'),
    trigger: optionalText('leadForm.trigger'),
    afterMessages: optionalWholeNumber('leadForm.afterMessages'),
    consentText: optionalText('leadForm.consentText'),
  }),
  handoff: section('handoff', {
    enabled: optionalFlag('handoff.enabled'),
    timeoutSeconds: optionalWholeNumber('handoff.timeoutSeconds'),
  }),
  privacy: section('privacy', restPrivacyFields),
  // The model choice: `fallbackModelId` null or "" for none.
  modelId: optionalText('modelId'),
  fallbackModelId: ofTypesOrNull<string>('fallbackModelId', ['string'], 'a string or null'),
});

const who = 'session';
const read: Permission = 'workspace:read';
const write: Permission = 'chatbots:write';
// Visitors' words: agents and above.
const conversationsRead: Permission = 'conversations:read';
const base = '/api/chatbot';
const entry = `${base}/:id/knowledge-base/text-entries/:entryId`;

/** The chatbot as REST clients read it (`_id`), its models named from the catalogue. */
const view = (app: OperationDeps, chatbot: Parameters<typeof chatbotView>[0]) => restChatbot(chatbotView(chatbot, app.catalogue));

export const chatbotOperations: Operation[] = [
  operation({ method: 'GET', path: base, who, permission: read }, async ({ app, member }) => {
    const { chatbots } = await app.clients.chatbot.listChatbots({ ownerId: member.ownerId, includeKnowledgeBase: true });
    return chatbots.map((chatbot) => view(app, chatbot));
  }),
  operation(
    { method: 'POST', path: base, who, permission: write, status: 201, body: jsonBody({ name: text('name') }) },
    async ({ app, member, body }) => {
      const { chatbot } = await app.clients.chatbot.createChatbot({ ownerId: member.ownerId, name: body.name });
      return view(app, chatbot);
    },
  ),
  operation({ method: 'GET', path: `${base}/:id`, who, permission: read }, async ({ app, member, params }) => {
    const { chatbot } = await app.clients.chatbot.getChatbot({ ownerId: member.ownerId, chatbotId: params.id });
    return view(app, chatbot);
  }),
  operation({ method: 'PUT', path: `${base}/:id`, who, permission: write, body: chatbotChanges }, async ({ app, member, params, body }) => {
    const changes = {
      name: body.name,
      isActive: body.isActive,
      ...languageChange(body.language),
      ...voiceChange(body),
      ...embedSettingsChange(body),
      ...leadSettingsChange(body),
      ...privacyChange(body.privacy),
    };
    const actor = { userId: member.user.id, workspaceId: member.ownerId, clientIp: member.clientIp };
    const { modelId, fallbackModelId } = body;
    return restChatbot(await updateChatbot(app.clients, app.catalogue, { actor }, params.id, changes, { modelId, fallbackModelId }));
  }),
  operation({ method: 'DELETE', path: `${base}/:id`, who, permission: write }, async ({ app: { clients }, member, params }) => {
    await clients.chatbot.deleteChatbot({ ownerId: member.ownerId, chatbotId: params.id });
    return { message: CHATBOT_DELETED_MESSAGE };
  }),
  operation(
    { method: 'POST', path: `${base}/:id/profile-picture`, who, permission: write, multipart: true },
    async ({ app: { clients, uploads }, member, params, req }) => {
      const content = await readPictureUpload(req, uploads.maxPictureBytes);
      const { profilePicture } = await clients.chatbot.setProfilePicture({ ownerId: member.ownerId, chatbotId: params.id, content });
      return { profilePicture };
    },
  ),
  operation(
    {
      method: 'POST',
      path: `${base}/:id/knowledge-base/text`,
      who,
      permission: write,
      body: jsonBody({ append: optionalFlag('append'), text: text('text') }),
    },
    async ({ app: { clients }, member, params, body }) => {
      if (body.append === false) throw invalid(APPEND_ONLY);
      const { knowledgeBase } = await clients.chatbot.addTextEntry({ ownerId: member.ownerId, chatbotId: params.id, text: body.text });
      return { knowledgeBase: restKnowledgeBase(knowledgeBaseView(knowledgeBase)) };
    },
  ),
  // Accepted: the entry is parsed in the background (status "processing").
  operation(
    { method: 'POST', path: `${base}/:id/knowledge-base/files`, who, permission: write, status: 202, multipart: true },
    async ({ app: { clients, uploads }, member, params, req }) => {
      const file = await readKnowledgeUpload(req, uploads.maxUploadBytes);
      const added = await clients.chatbot.addFileEntry(
        { ownerId: member.ownerId, chatbotId: params.id, fileName: file.name, content: file.content },
        { timeoutMs: uploads.uploadTimeoutMs },
      );
      return restTextEntryResult(textEntryResultView(added));
    },
  ),
  operation(
    {
      method: 'POST',
      path: `${base}/:id/knowledge-base/urls`,
      who,
      permission: write,
      status: 202,
      body: jsonBody({ url: text('url'), crawl: optionalFlag('crawl'), maxPages: optionalWholeNumber('maxPages') }),
    },
    async ({ app: { clients }, member, params, body }) => {
      const added = await clients.chatbot.addUrlEntry({
        ownerId: member.ownerId,
        chatbotId: params.id,
        url: body.url,
        crawl: body.crawl ?? false,
        maxPages: maxPagesField(body.maxPages),
      });
      return restTextEntryResult(textEntryResultView(added));
    },
  ),
  operation(
    {
      method: 'POST',
      path: `${base}/:id/knowledge-base/qa`,
      who,
      permission: write,
      status: 201,
      body: jsonBody({ question: text('question'), answer: text('answer') }),
    },
    async ({ app: { clients }, member, params, body }) => {
      const added = await clients.chatbot.addQaEntry({ ownerId: member.ownerId, chatbotId: params.id, ...body });
      return restTextEntryResult(textEntryResultView(added));
    },
  ),
  // Accepted: the page is fetched again in the background.
  operation(
    { method: 'POST', path: `${entry}/refresh`, who, permission: write, status: 202 },
    async ({ app: { clients }, member, params }) => {
      const refreshed = await clients.chatbot.refreshEntry({ ownerId: member.ownerId, chatbotId: params.id, entryId: params.entryId });
      return restTextEntryResult(textEntryResultView(refreshed));
    },
  ),
  operation(
    { method: 'PUT', path: entry, who, permission: write, body: jsonBody({ autoSync: flag('autoSync') }) },
    async ({ app: { clients }, member, params, body }) => {
      const changed = await clients.chatbot.setEntryAutoSync({
        ownerId: member.ownerId,
        chatbotId: params.id,
        entryId: params.entryId,
        autoSync: body.autoSync,
      });
      return restTextEntryResult(textEntryResultView(changed));
    },
  ),
  operation({ method: 'DELETE', path: entry, who, permission: write }, async ({ app: { clients }, member, params }) => {
    const { knowledgeBase } = await clients.chatbot.deleteTextEntry({
      ownerId: member.ownerId,
      chatbotId: params.id,
      entryId: params.entryId,
    });
    return { knowledgeBase: restKnowledgeBase(knowledgeBaseView(knowledgeBase)) };
  }),

  operation(
    { method: 'GET', path: `${base}/:id/conversations`, who, permission: conversationsRead },
    async ({ app: { clients }, member, params }) => {
      const { conversations } = await clients.chat.listConversations({ ownerId: member.ownerId, chatbotId: params.id });
      return conversations.map((c) => restConversation(conversationView(c)));
    },
  ),
  operation(
    { method: 'GET', path: `${base}/:id/conversations/:conversationId`, who, permission: conversationsRead },
    async ({ app: { clients }, member, params }) => {
      const { conversation } = await clients.chat.getConversation({
        ownerId: member.ownerId,
        chatbotId: params.id,
        conversationId: params.conversationId,
      });
      return restConversation(conversationView(conversation));
    },
  ),
];
