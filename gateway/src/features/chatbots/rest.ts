// REST paths (docs/product.md, REST API) for an owner's chatbots and their pictures and settings (appearance, allowed
// domains, visitor limits, the lead form, handoff and privacy); their knowledge bases are features/knowledge's rows,
// their conversations features/conversations'. Each path acts in the request's workspace (X-Workspace-Id, the personal one without it) with the
// permission its row of this operation table (http/operations.ts) names; another owner's chatbot answers 404 (the
// chatbot service decides, and owns every rule on the values):
//   GET    /api/chatbot                               → [chatbot]
//   POST   /api/chatbot { name }                      → chatbot (201)
//   GET    /api/chatbot/{id}                          → chatbot
//   PUT    /api/chatbot/{id} { name?, isActive?, language?, instructions?, …, privacy? } → chatbot
//   DELETE /api/chatbot/{id}                          → { message }
//   POST   /api/chatbot/{id}/profile-picture          multipart, field profilePicture → { profilePicture }
// The picture's upload is a row that reads its own body (`multipart`), once the caller is checked.
import { z } from 'zod';
import type { Permission } from '@parley/common/roles.ts';
import { chatbotView, embedSettingsChange, languageChange, restChatbot, updateChatbot, voiceChange } from './chatbots.ts';
import { leadSettingsChange } from '../leads/leads.ts';
import { privacyChange, restPrivacyFields } from '../privacy/privacy.ts';
import { operation, type Operation, type OperationDeps } from '../../http/operations.ts';
import { jsonBody, numberOrNull, optionalFlag, optionalText, optionalTextList, optionalWholeNumber, text } from '../../http/input.ts';
import { readPictureUpload } from './picture-upload.ts';

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
const base = '/api/chatbot';

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
];
