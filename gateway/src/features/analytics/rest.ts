// The analytics paths (docs/product.md, Feedback, analytics and unanswered questions), the GraphQL Analytics shape as JSON (./analytics.ts):
//   GET /api/chatbot/{id}/analytics?startDate&endDate   one of the owner's chatbots
//   GET /api/analytics/summary?startDate&endDate        all the owner's chatbots together
// Dates are inclusive UTC days (YYYY-MM-DD), by default the last 30. Free owners get the totals only
// (`full: false`); the chat service decides that, the dates' rules and another owner's chatbot (404).
// Rows of this operation table (http/operations.ts), read by any member.
import { z } from 'zod';
import { loadAnalyticsSummary, loadChatbotAnalytics } from './analytics.ts';
import { operation, type Operation } from '../../http/operations.ts';

const who = 'session';
// The dates as given, for the chat service to check.
const dates = z.object({ startDate: z.unknown().optional(), endDate: z.unknown().optional() });

export const analyticsOperations: Operation[] = [
  operation(
    { method: 'GET', path: '/api/chatbot/:id/analytics', who, permission: 'workspace:read', query: dates },
    async ({ app: { clients }, member, params, query }) => loadChatbotAnalytics(clients, member.ownerId, params.id, query),
  ),
  operation(
    { method: 'GET', path: '/api/analytics/summary', who, permission: 'workspace:read', query: dates },
    async ({ app: { clients }, member, query }) => loadAnalyticsSummary(clients, member.ownerId, query),
  ),
];
