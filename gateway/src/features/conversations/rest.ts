// The conversations' operation table (http/operations.ts): a chatbot's conversations and their export
// (conversation-export.ts; docs/product.md, Conversation export), visitors' words read by agents and above:
//   GET /api/chatbot/{id}/conversations                  → [conversation]
//   GET /api/chatbot/{id}/conversations/{conversationId} → conversation
//   GET /api/chatbot/{id}/conversations/export?format=csv|jsonl[&startDate&endDate]
// "export" is never read as a conversation id: the registration tries a literal segment first.
import { z } from 'zod';
import { operation, readWith, type Operation } from '../../http/operations.ts';
import { dateOf, formatOf, streamConversationExport } from './conversation-export.ts';
import { conversationView, restConversation } from './conversations.ts';

const exportQuery = z.object({ format: readWith(formatOf), startDate: readWith(dateOf), endDate: readWith(dateOf) });

export const conversationOperations: Operation[] = [
  operation(
    { method: 'GET', path: '/api/chatbot/:id/conversations', who: 'session', permission: 'conversations:read' },
    async ({ app: { clients }, member, params }) => {
      const { conversations } = await clients.chat.listConversations({ ownerId: member.ownerId, chatbotId: params.id });
      return conversations.map((c) => restConversation(conversationView(c)));
    },
  ),
  operation(
    { method: 'GET', path: '/api/chatbot/:id/conversations/:conversationId', who: 'session', permission: 'conversations:read' },
    async ({ app: { clients }, member, params }) => {
      const { conversation } = await clients.chat.getConversation({
        ownerId: member.ownerId,
        chatbotId: params.id,
        conversationId: params.conversationId,
      });
      return restConversation(conversationView(conversation));
    },
  ),
  operation(
    {
      method: 'GET',
      path: '/api/chatbot/:id/conversations/export',
      who: 'session',
      permission: 'conversations:read',
      query: exportQuery,
    },
    async ({ res, app: { clients, logger }, ownerId, params, query }) => {
      await streamConversationExport(res, clients, { owner: ownerId, chatbotId: params.id, ...query }, logger);
      return undefined;
    },
  ),
];
