// GET /api/user/usage (docs/product.md, Usage): the signed-in owner's usage between two ISO dates, optionally for
// one chatbot, as the Usage response plus the additive fields (see ../usage.ts). A row of the
// operation table (http/operations.ts): who is asking is settled first, so a signed-out caller gets
// 401 whatever the dates say.
import { operation, readWith, type Operation } from '../../http/operations.ts';
import { loadUsageReport, parseUsageQuery, restUsageReport } from './usage.ts';

export const usageOperations: Operation[] = [
  operation(
    {
      method: 'GET',
      path: '/api/user/usage',
      who: 'session',
      permission: 'workspace:read',
      query: readWith((value) => {
        const query = (value ?? {}) as Record<string, unknown>;
        return parseUsageQuery({ startDate: query.startDate, endDate: query.endDate, chatbotId: query.chatbotId });
      }),
    },
    async ({ app: { clients }, member, query }) => restUsageReport(await loadUsageReport(clients, member.ownerId, query)),
  ),
];
