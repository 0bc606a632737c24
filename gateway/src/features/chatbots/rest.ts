// REST paths (docs/product.md, REST API) for an owner's chatbots, their pictures and knowledge base (typed text, files,
// web pages and Q&A pairs; appearance, allowed domains, visitor limits, the lead form, handoff and privacy). Every
// path acts for the signed-in owner; another owner's chatbot answers 404 (the chatbot service
// decides, and owns every rule on the values).
import { Router, type Request } from 'express';
import type { Clients } from '../../http/clients.ts';
import {
  chatbotView,
  embedSettingsChange,
  type EmbedSettingsInput,
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
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { ModelChoiceInput } from '../models/models.ts';
import { conversationView, restConversation } from '../conversations/conversations.ts';
import { leadSettingsChange, type LeadSettingsInput } from '../leads/leads.ts';
import { privacyChange, restPrivacyInput } from '../privacy/privacy-settings.ts';
import { ownerId, routeMember } from '../../access/members.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import {
  booleanField,
  jsonObject,
  optionalBoolean,
  optionalInteger,
  optionalNumberOrNull,
  optionalString,
  optionalStringArray,
  stringField,
  type JsonObject,
} from '../../http/input.ts';
import { readKnowledgeUpload } from '../knowledge/knowledge-upload.ts';
import { readPictureUpload } from './picture-upload.ts';

export const APPEND_ONLY = 'append must be true: text is added to the knowledge base as a new entry';

/**
 * An optional nested object of the body, its fields named by their path ("appearance.position") so
 * input.ts's messages say which field is wrong.
 */
function nestedObject(body: JsonObject, name: string): JsonObject | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`${name} must be an object`);
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [`${name}.${key}`, v]));
}

/** A field of several JSON types, or null; undefined when absent. */
function optionalOfTypes<T>(body: JsonObject, name: string, types: ('string' | 'number')[], message: string): T | null | undefined {
  const value = body[name];
  if (value === undefined || value === null) return value;
  if (!(types as string[]).includes(typeof value)) throw invalid(`${name} must be ${message}`);
  return value as T;
}

/** The embed settings of PUT /api/chatbot/{id}, typed; partial at every level. */
function embedSettingsInput(body: JsonObject): EmbedSettingsInput {
  const appearance = nestedObject(body, 'appearance');
  const limits = nestedObject(body, 'limits');
  return {
    appearance: appearance && {
      // Null: the product's colour.
      primaryColor: optionalOfTypes<string>(appearance, 'appearance.primaryColor', ['string'], 'a string or null'),
      position: optionalString(appearance, 'appearance.position'),
      launcherLabel: optionalString(appearance, 'appearance.launcherLabel'),
      hideBranding: optionalBoolean(appearance, 'appearance.hideBranding'),
    },
    allowedDomains: optionalStringArray(body, 'allowedDomains'),
    standalonePage: optionalBoolean(body, 'standalonePage'),
    limits: limits && {
      visitorMessagesPerDay: optionalOfTypes<number>(limits, 'limits.visitorMessagesPerDay', ['number'], 'a number or null'),
      dailySpendLimit: optionalOfTypes<number | string>(
        limits,
        'limits.dailySpendLimit',
        ['number', 'string'],
        'a number, a string or null',
      ),
      proofOfWork: optionalBoolean(limits, 'limits.proofOfWork'),
    },
  };
}

/** The lead form and handoff of PUT /api/chatbot/{id} (docs/adr/0034-humans-in-the-loop.md), typed; partial at every level. */
function leadSettingsInput(body: JsonObject): LeadSettingsInput {
  const leadForm = nestedObject(body, 'leadForm');
  const handoff = nestedObject(body, 'handoff');
  return {
    leadForm: leadForm && {
      name: optionalString(leadForm, 'leadForm.name'),
      email: optionalString(leadForm, 'leadForm.email'),
      phone: optionalString(leadForm, 'leadForm.phone'),
      trigger: optionalString(leadForm, 'leadForm.trigger'),
      afterMessages: optionalInteger(leadForm, 'leadForm.afterMessages'),
      consentText: optionalString(leadForm, 'leadForm.consentText'),
    },
    handoff: handoff && {
      enabled: optionalBoolean(handoff, 'handoff.enabled'),
      timeoutSeconds: optionalInteger(handoff, 'handoff.timeoutSeconds'),
    },
  };
}

/** The model choice of PUT /api/chatbot/{id}: `modelId`, and `fallbackModelId` (null or "" for none). */
function modelChoiceInput(body: JsonObject): ModelChoiceInput {
  return {
    modelId: optionalString(body, 'modelId'),
    fallbackModelId: optionalOfTypes<string>(body, 'fallbackModelId', ['string'], 'a string or null'),
  };
}

export interface ChatbotRouteOptions {
  catalogue: ModelCatalogue;
  maxPictureBytes: number;
  /** Largest knowledge file read from a request (413 past it). */
  maxUploadBytes: number;
  /** Deadline of the call that hands an uploaded file to the chatbot service. */
  uploadTimeoutMs: number;
}

export function chatbotRoutes(clients: Clients, opts: ChatbotRouteOptions): Router {
  const router = Router();
  const owner = (req: Request) => ownerId(clients, req);
  const view = (chatbot: Parameters<typeof chatbotView>[0]) => restChatbot(chatbotView(chatbot, opts.catalogue));

  router.get('/', async (req, res) => {
    const { chatbots } = await clients.chatbot.listChatbots({ ownerId: await owner(req), includeKnowledgeBase: true });
    res.json(chatbots.map(view));
  });

  router.post('/', async (req, res) => {
    const body = jsonObject(req.body);
    const { chatbot } = await clients.chatbot.createChatbot({ ownerId: await owner(req), name: stringField(body, 'name') });
    res.status(201).json(view(chatbot));
  });

  router.get('/:id', async (req, res) => {
    const { chatbot } = await clients.chatbot.getChatbot({ ownerId: await owner(req), chatbotId: req.params.id });
    res.json(view(chatbot));
  });

  router.put('/:id', async (req, res) => {
    const body = jsonObject(req.body);
    const changes = {
      name: optionalString(body, 'name'),
      isActive: optionalBoolean(body, 'isActive'),
      ...languageChange(optionalString(body, 'language')),
      ...voiceChange({
        instructions: optionalString(body, 'instructions'),
        temperature: optionalNumberOrNull(body, 'temperature'),
        welcomeMessage: optionalString(body, 'welcomeMessage'),
        suggestedQuestions: optionalStringArray(body, 'suggestedQuestions'),
        noAnswerMessage: optionalString(body, 'noAnswerMessage'),
        answerInVisitorLanguage: optionalBoolean(body, 'answerInVisitorLanguage'),
      }),
      ...embedSettingsChange(embedSettingsInput(body)),
      ...leadSettingsChange(leadSettingsInput(body)),
      ...privacyChange(restPrivacyInput(nestedObject(body, 'privacy'))),
    };
    const model = modelChoiceInput(body);
    const m = await routeMember(clients, req);
    const actor = { userId: m.user.id, workspaceId: m.ownerId, clientIp: m.clientIp };
    const updated = await updateChatbot(clients, opts.catalogue, { actor }, req.params.id, changes, model);
    res.json(restChatbot(updated));
  });

  router.delete('/:id', async (req, res) => {
    await clients.chatbot.deleteChatbot({ ownerId: await owner(req), chatbotId: req.params.id });
    res.json({ message: 'Chatbot deleted' });
  });

  router.post('/:id/profile-picture', async (req, res) => {
    // Who is asking is settled before the upload is read.
    const id = await owner(req);
    const content = await readPictureUpload(req, opts.maxPictureBytes);
    const { profilePicture } = await clients.chatbot.setProfilePicture({ ownerId: id, chatbotId: req.params.id, content });
    res.json({ profilePicture });
  });

  router.post('/:id/knowledge-base/text', async (req, res) => {
    const body = jsonObject(req.body);
    if (optionalBoolean(body, 'append') === false) throw invalid(APPEND_ONLY);
    const { knowledgeBase } = await clients.chatbot.addTextEntry({
      ownerId: await owner(req),
      chatbotId: req.params.id,
      text: stringField(body, 'text'),
    });
    res.json({ knowledgeBase: restKnowledgeBase(knowledgeBaseView(knowledgeBase)) });
  });

  router.post('/:id/knowledge-base/files', async (req, res) => {
    // Who is asking is settled before the upload is read.
    const id = await owner(req);
    const file = await readKnowledgeUpload(req, opts.maxUploadBytes);
    const added = await clients.chatbot.addFileEntry(
      { ownerId: id, chatbotId: req.params.id, fileName: file.name, content: file.content },
      { timeoutMs: opts.uploadTimeoutMs },
    );
    // Accepted: the entry is parsed in the background (status "processing").
    res.status(202).json(restTextEntryResult(textEntryResultView(added)));
  });

  router.post('/:id/knowledge-base/urls', async (req, res) => {
    const body = jsonObject(req.body);
    const added = await clients.chatbot.addUrlEntry({
      ownerId: await owner(req),
      chatbotId: req.params.id,
      url: stringField(body, 'url'),
      crawl: optionalBoolean(body, 'crawl') ?? false,
      maxPages: maxPagesField(optionalInteger(body, 'maxPages')),
    });
    res.status(202).json(restTextEntryResult(textEntryResultView(added)));
  });

  router.post('/:id/knowledge-base/qa', async (req, res) => {
    const body = jsonObject(req.body);
    const added = await clients.chatbot.addQaEntry({
      ownerId: await owner(req),
      chatbotId: req.params.id,
      question: stringField(body, 'question'),
      answer: stringField(body, 'answer'),
    });
    res.status(201).json(restTextEntryResult(textEntryResultView(added)));
  });

  router.post('/:id/knowledge-base/text-entries/:entryId/refresh', async (req, res) => {
    const refreshed = await clients.chatbot.refreshEntry({
      ownerId: await owner(req),
      chatbotId: req.params.id,
      entryId: req.params.entryId,
    });
    // Accepted: the page is fetched again in the background.
    res.status(202).json(restTextEntryResult(textEntryResultView(refreshed)));
  });

  router.put('/:id/knowledge-base/text-entries/:entryId', async (req, res) => {
    const body = jsonObject(req.body);
    const changed = await clients.chatbot.setEntryAutoSync({
      ownerId: await owner(req),
      chatbotId: req.params.id,
      entryId: req.params.entryId,
      autoSync: booleanField(body, 'autoSync'),
    });
    res.json(restTextEntryResult(textEntryResultView(changed)));
  });

  router.delete('/:id/knowledge-base/text-entries/:entryId', async (req, res) => {
    const { knowledgeBase } = await clients.chatbot.deleteTextEntry({
      ownerId: await owner(req),
      chatbotId: req.params.id,
      entryId: req.params.entryId,
    });
    res.json({ knowledgeBase: restKnowledgeBase(knowledgeBaseView(knowledgeBase)) });
  });

  router.get('/:id/conversations', async (req, res) => {
    const { conversations } = await clients.chat.listConversations({ ownerId: await owner(req), chatbotId: req.params.id });
    res.json(conversations.map((c) => restConversation(conversationView(c))));
  });

  router.get('/:id/conversations/:conversationId', async (req, res) => {
    const { conversation } = await clients.chat.getConversation({
      ownerId: await owner(req),
      chatbotId: req.params.id,
      conversationId: req.params.conversationId,
    });
    res.json(restConversation(conversationView(conversation)));
  });

  return router;
}
