// GraphQL counterpart of GET /api/leads/export's rows: the workspace's leads a page at a time, from
// the chat service, which owns every rule (the chatbot's ownership, the dates, the cursor, the page size).
import type { Resolvers } from '../../generated/graphql.ts';
import { leadView } from './leads.ts';

export const leadResolvers: Resolvers = {
  Query: {
    leads: async (_parent, { chatbotId, startDate, endDate, after, first }, ctx) => {
      const page = await ctx.clients.chat.listLeads({
        ownerId: (await ctx.member()).ownerId,
        chatbotId: chatbotId ?? '',
        startDate: startDate ?? '',
        endDate: endDate ?? '',
        cursor: after ?? '',
        // 0 is "not given" on the wire: a typed 0 or less travels as -1 for the service to refuse.
        limit: first === null || first === undefined ? 0 : first < 1 ? -1 : first,
      });
      return { leads: page.leads.map(leadView), nextCursor: page.nextCursor || null };
    },
  },
};
