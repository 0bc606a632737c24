// REST paths of spec §7 for an owner's chatbots, their pictures and knowledge base. Every path acts
// for the signed-in owner; another owner's chatbot answers 404 (the chatbot service decides).
import { Router, type Request } from 'express';
import type { Clients } from '../clients.ts';
import { chatbotView, knowledgeBaseView, languageChange, restChatbot, restKnowledgeBase } from '../chatbots.ts';
import { conversationView, restConversation } from '../conversations.ts';
import { bearerToken } from '../context.ts';
import { ownerId } from '../owners.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { jsonObject, optionalBoolean, optionalString, stringField } from './input.ts';
import { readPictureUpload } from './picture-upload.ts';

export const APPEND_ONLY = 'append must be true: text is added to the knowledge base as a new entry';

export function chatbotRoutes(clients: Clients, opts: { maxPictureBytes: number }): Router {
  const router = Router();
  const owner = (req: Request) => ownerId(clients, bearerToken(req));

  router.get('/', async (req, res) => {
    const { chatbots } = await clients.chatbot.listChatbots({ ownerId: await owner(req), includeKnowledgeBase: true });
    res.json(chatbots.map((c) => restChatbot(chatbotView(c))));
  });

  router.post('/', async (req, res) => {
    const body = jsonObject(req.body);
    const { chatbot } = await clients.chatbot.createChatbot({ ownerId: await owner(req), name: stringField(body, 'name') });
    res.status(201).json(restChatbot(chatbotView(chatbot)));
  });

  router.get('/:id', async (req, res) => {
    const { chatbot } = await clients.chatbot.getChatbot({ ownerId: await owner(req), chatbotId: req.params.id });
    res.json(restChatbot(chatbotView(chatbot)));
  });

  router.put('/:id', async (req, res) => {
    const body = jsonObject(req.body);
    const changes = {
      name: optionalString(body, 'name'),
      isActive: optionalBoolean(body, 'isActive'),
      ...languageChange(optionalString(body, 'language')),
    };
    const { chatbot } = await clients.chatbot.updateChatbot({ ownerId: await owner(req), chatbotId: req.params.id, ...changes });
    res.json(restChatbot(chatbotView(chatbot)));
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
