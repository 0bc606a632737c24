// The analytics paths (docs/product.md, Feedback, analytics and unanswered questions), the GraphQL Analytics shape as JSON (./analytics.ts):
//   GET /api/chatbot/{id}/analytics?startDate&endDate   one of the owner's chatbots
//   GET /api/analytics/summary?startDate&endDate        all the owner's chatbots together
// Dates are inclusive UTC days (YYYY-MM-DD), by default the last 30. Free owners get the totals only
// (`full: false`); the chat service decides that, the dates' rules and another owner's chatbot (404).
import { Router, type Request } from 'express';
import type { Clients } from '../../http/clients.ts';
import { loadAnalyticsSummary, loadChatbotAnalytics } from './analytics.ts';
import { ownerId } from '../../access/members.ts';

const datesOf = (req: Request) => ({ startDate: req.query.startDate, endDate: req.query.endDate });

/** Mounted under /chatbot, beside the chatbot routes. */
export function chatbotAnalyticsRoutes(clients: Clients): Router {
  const router = Router();

  router.get('/:id/analytics', async (req, res) => {
    // Who is asking is settled first: a signed-out caller gets 401 whatever the dates say.
    const owner = await ownerId(clients, req);
    res.json(await loadChatbotAnalytics(clients, owner, req.params.id, datesOf(req)));
  });

  return router;
}

/** Mounted under /analytics. */
export function analyticsSummaryRoutes(clients: Clients): Router {
  const router = Router();

  router.get('/summary', async (req, res) => {
    const owner = await ownerId(clients, req);
    res.json(await loadAnalyticsSummary(clients, owner, datesOf(req)));
  });

  return router;
}
