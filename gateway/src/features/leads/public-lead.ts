// The chat's lead form, submitted by the chat page, the embed page and host pages without signing in
// (docs/product.md, Leads; docs/adr/0034-humans-in-the-loop.md), beside the other public paths and
// under the same CORS and site rules (public-chat.ts):
//   POST /api/chatbot/public/{uniqueId}/lead   { sessionId?, name?, email?, phone?, consent?: boolean,
//                                                source?: "form" | "handoff_timeout", visitor?: { id?, name? } }
//                                            → 201 { leadId, sessionId }
// The chat service owns every rule: the fields against the chatbot's form, the visitor's rate limit,
// the site, a new conversation (whose sessionId the answer carries) for a visitor without one, and
// one lead per conversation (a second submission updates it; still 201, the same leadId).
import { Router } from 'express';
import { clientIp } from '@parley/common/http.ts';
import type { Clients } from '../../http/clients.ts';
import { jsonObject, optionalBoolean, stringField } from '../../http/input.ts';
import { requestSite, visitorField } from '../public-chat/rest.ts';

export function publicLeadRoutes(clients: Clients, opts: { publicUrl: string }): Router {
  const router = Router();

  router.post('/:uniqueId/lead', async (req, res) => {
    const body = jsonObject(req.body);
    const visitor = visitorField(body);
    const { leadId, sessionId } = await clients.chat.submitLead({
      uniqueId: req.params.uniqueId,
      sessionId: stringField(body, 'sessionId'),
      name: stringField(body, 'name'),
      email: stringField(body, 'email'),
      phone: stringField(body, 'phone'),
      consented: optionalBoolean(body, 'consent') ?? false,
      source: stringField(body, 'source'),
      clientIp: clientIp(req),
      userAgent: req.get('user-agent') ?? '',
      ...requestSite(req, opts.publicUrl),
      visitorId: visitor.id,
      visitorName: visitor.name,
    });
    res.status(201).json({ leadId, sessionId });
  });

  return router;
}
