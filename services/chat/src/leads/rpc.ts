// The ChatService's lead methods over ConnectRPC (docs/adr/0034-humans-in-the-loop.md), spread into
// the service's routes by rpc.ts: map proto messages to the use cases and back, nothing more.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { LeadSchema, type ListLeadsRequest, type SubmitLeadRequest } from '@parley/proto/parley/chat/v1/chat_pb.js';
import type { Lead } from '../generated/prisma/client.ts';
import { listLeads, type ListLeadsDeps } from './list-leads.ts';
import { submitLead, type SubmitLeadDeps } from './submit-lead.ts';

export type LeadRpcDeps = SubmitLeadDeps & ListLeadsDeps;

export const toLeadMessage = (l: Lead) =>
  create(LeadSchema, {
    id: l.id,
    chatbotId: l.chatbotId,
    conversationId: l.conversationId,
    name: l.name ?? '',
    email: l.email ?? '',
    phone: l.phone ?? '',
    consented: l.consented,
    consentText: l.consentText ?? '',
    source: l.source,
    createdAt: timestampFromDate(l.createdAt),
    channel: l.channel ?? '',
    channelContact: l.channelContact ?? '',
  });

export function leadMethods(deps: LeadRpcDeps) {
  return {
    async submitLead(req: SubmitLeadRequest) {
      return submitLead(deps, req);
    },
    async listLeads(req: ListLeadsRequest) {
      const page = await listLeads(deps, {
        ownerId: req.ownerId,
        chatbotId: req.chatbotId,
        startDate: req.startDate,
        endDate: req.endDate,
        cursor: req.cursor,
        limit: req.limit,
      });
      return { leads: page.leads.map(toLeadMessage), nextCursor: page.nextCursor };
    },
  };
}
