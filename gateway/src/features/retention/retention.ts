// A workspace's retention windows as the dashboard reads and changes them (docs/adr/0048-retention-windows.md,
// docs/adr/0059-retention-in-every-service.md): each window lives in the service that holds its data,
// so these are thin calls to chat's GetRetention / SetRetention / PreviewRetention (conversations,
// leads, analytics), billing's usage detail and the chatbot service's webhook deliveries methods,
// and their GraphQL resolvers. The one rule (7 to 36,500 days, or forever) and its message are
// services/common/src/retention.ts; the gateway checks members:manage (permissions.ts) and audits a
// change with the windows before and after and how much the new windows put past their end. A save
// checks every window first (the rule's message, before any service is changed), then sets each.
import { parseRetentionDays } from '@parley/common/retention.ts';
import type { Clients } from '../../http/clients.ts';
import type { Resolvers } from '../../generated/graphql.ts';
import type { Member } from '../../access/members.ts';

export interface RetentionWindowsView {
  conversationDays: number | null;
  leadDays: number | null;
  usageDetailDays: number | null;
  webhookDeliveryDays: number | null;
  analyticsDays: number | null;
}

export interface RetentionPreviewView {
  conversations: number;
  messages: number;
  leads: number;
  usageRecords: number;
  webhookDeliveries: number;
  analyticsDays: number;
  questionGroups: number;
}

type WindowsInput = { [K in keyof RetentionWindowsView]?: number | null };
const chatWindows = (w: WindowsInput) => ({
  conversationDays: w.conversationDays ?? undefined,
  leadDays: w.leadDays ?? undefined,
  analyticsDays: w.analyticsDays ?? undefined,
});
const usageRetention = (w: WindowsInput) => ({ usageDetailDays: w.usageDetailDays ?? undefined });
const webhookRetention = (w: WindowsInput) => ({ deliveryDays: w.webhookDeliveryDays ?? undefined });

export async function getRetention(clients: Clients, m: Member): Promise<RetentionWindowsView> {
  const [chat, usage, webhooks] = await Promise.all([
    clients.chat.getRetention({ ownerId: m.ownerId }),
    clients.billing.getUsageRetention({ ownerId: m.ownerId }),
    clients.webhooks.getWebhookRetention({ ownerId: m.ownerId }),
  ]);
  return {
    conversationDays: chat.windows?.conversationDays ?? null,
    leadDays: chat.windows?.leadDays ?? null,
    usageDetailDays: usage.retention?.usageDetailDays ?? null,
    webhookDeliveryDays: webhooks.retention?.deliveryDays ?? null,
    analyticsDays: chat.windows?.analyticsDays ?? null,
  };
}

export async function previewRetention(clients: Clients, m: Member, windows: WindowsInput): Promise<RetentionPreviewView> {
  const [chat, usage, webhooks] = await Promise.all([
    clients.chat.previewRetention({ ownerId: m.ownerId, windows: chatWindows(windows) }),
    clients.billing.previewUsageRetention({ ownerId: m.ownerId, retention: usageRetention(windows) }),
    clients.webhooks.previewWebhookRetention({ ownerId: m.ownerId, retention: webhookRetention(windows) }),
  ]);
  const c = chat.counts;
  return {
    conversations: Number(c?.conversations ?? 0),
    messages: Number(c?.messages ?? 0),
    leads: Number(c?.leads ?? 0),
    usageRecords: Number(usage.usageRecords),
    webhookDeliveries: Number(webhooks.webhookDeliveries),
    analyticsDays: Number(c?.analyticsDays ?? 0),
    questionGroups: Number(c?.questionGroups ?? 0),
  };
}

export async function setRetention(clients: Clients, m: Member, windows: WindowsInput): Promise<RetentionWindowsView> {
  // Every window checked before any service is changed, so a bad one leaves all as they were.
  for (const days of Object.values(windows)) parseRetentionDays(days);
  const before = await getRetention(clients, m);
  await Promise.all([
    clients.chat.setRetention({ ownerId: m.ownerId, windows: chatWindows(windows) }),
    clients.billing.setUsageRetention({ ownerId: m.ownerId, retention: usageRetention(windows) }),
    clients.webhooks.setWebhookRetention({ ownerId: m.ownerId, retention: webhookRetention(windows) }),
  ]);
  const saved = await getRetention(clients, m);
  const pastTheWindows = await previewRetention(clients, m, saved);
  await clients.workspaces.recordAuditEvent({
    actor: { userId: m.user.id, workspaceId: m.ownerId, clientIp: m.clientIp },
    action: 'workspace.retention_changed',
    target: m.ownerId,
    detailsJson: JSON.stringify({ before, after: saved, pastTheWindows }),
  });
  return saved;
}

export const retentionResolvers: Resolvers = {
  Query: {
    retention: async (_parent, _args, ctx) => getRetention(ctx.clients, await ctx.member()),
    retentionPreview: async (_parent, { input }, ctx) => previewRetention(ctx.clients, await ctx.member(), input),
  },
  Mutation: {
    setRetention: async (_parent, { input }, ctx) => setRetention(ctx.clients, await ctx.member(), input),
  },
};
