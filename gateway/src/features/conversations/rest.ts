// The conversations' operation table (http/operations.ts): the export of a chatbot's conversations
// (conversation-export.ts; docs/product.md, Conversation export), visitors' words read by agents and above:
//   GET /api/chatbot/{id}/conversations/export?format=csv|jsonl[&startDate&endDate]
// A whole path in a table, so "export" is never read as a conversation id whatever is mounted.
import { z } from 'zod';
import { operation, readWith, type Operation } from '../../http/operations.ts';
import { dateOf, formatOf, streamConversationExport } from './conversation-export.ts';

const exportQuery = z.object({ format: readWith(formatOf), startDate: readWith(dateOf), endDate: readWith(dateOf) });

export const conversationOperations: Operation[] = [
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
