// The leads' operation table (http/operations.ts; docs/product.md, Leads; docs/adr/0034-humans-in-the-loop.md):
//
// The chat's lead form, submitted by the chat page, the embed page and host pages without signing in,
// beside the other public paths and under the same CORS and site rules (features/public-chat):
//   POST /api/chatbot/public/{uniqueId}/lead   { sessionId?, name?, email?, phone?, consent?: boolean,
//                                                source?: "form" | "handoff_timeout", visitor?: { id?, name? } }
//                                            → 201 { leadId, sessionId }
// The chat service owns every rule: the fields against the chatbot's form, the visitor's rate limit,
// the site, a new conversation (whose sessionId the answer carries) for a visitor without one, and
// one lead per conversation (a second submission updates it; still 201, the same leadId).
//
// The workspace's leads as a CSV download, read like its conversations (lead-export.ts):
//   GET  /api/leads/export?chatbotId=&startDate=&endDate=
import { z } from 'zod';
import { clientIp } from '@parley/common/http.ts';
import { jsonBody, optionalFlag, text } from '../../http/input.ts';
import { operation, readWith, type Operation } from '../../http/operations.ts';
import { requestSite, visitorOf } from '../public-chat/public-chat.ts';
import { queryParam, streamLeadExport } from './lead-export.ts';

// The fields in the order they are checked: the first wrong one is the one named.
const leadBody = jsonBody({
  visitor: readWith(visitorOf),
  sessionId: text('sessionId'),
  name: text('name'),
  email: text('email'),
  phone: text('phone'),
  consent: optionalFlag('consent'),
  source: text('source'),
});

const exportQuery = z.object({
  chatbotId: readWith(queryParam('chatbotId')),
  startDate: readWith(queryParam('startDate')),
  endDate: readWith(queryParam('endDate')),
});

export const leadOperations: Operation[] = [
  operation(
    { method: 'POST', path: '/api/chatbot/public/:uniqueId/lead', who: 'public', status: 201, body: leadBody },
    async ({ req, app: { clients, publicUrl }, params, body }) => {
      const { leadId, sessionId } = await clients.chat.submitLead({
        uniqueId: params.uniqueId,
        sessionId: body.sessionId,
        name: body.name,
        email: body.email,
        phone: body.phone,
        consented: body.consent ?? false,
        source: body.source,
        clientIp: clientIp(req),
        userAgent: req.get('user-agent') ?? '',
        ...requestSite(req, publicUrl),
        visitorId: body.visitor.id,
        visitorName: body.visitor.name,
      });
      return { leadId, sessionId };
    },
  ),
  // Leads are visitors' contacts: read like their conversations.
  operation(
    { method: 'GET', path: '/api/leads/export', who: 'session', permission: 'conversations:read', query: exportQuery },
    async ({ res, app: { clients, logger }, ownerId, query }) => {
      await streamLeadExport(res, clients, ownerId, query, logger);
      return undefined;
    },
  ),
];
