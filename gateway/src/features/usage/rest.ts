// GET /api/user/usage (docs/product.md, Usage): the signed-in owner's usage between two ISO dates, optionally for
// one chatbot, as the Usage response plus the additive fields (see ../usage.ts).
import { Router } from 'express';
import type { Clients } from '../../http/clients.ts';
import { ownerId } from '../../access/members.ts';
import { loadUsageReport, parseUsageQuery, restUsageReport } from './usage.ts';

export function usageRoutes(clients: Clients): Router {
  const router = Router();

  router.get('/usage', async (req, res) => {
    // Who is asking is settled first: a signed-out caller gets 401 whatever the dates say.
    const owner = await ownerId(clients, req);
    const query = parseUsageQuery({ startDate: req.query.startDate, endDate: req.query.endDate, chatbotId: req.query.chatbotId });
    res.json(restUsageReport(await loadUsageReport(clients, owner, query)));
  });

  return router;
}
