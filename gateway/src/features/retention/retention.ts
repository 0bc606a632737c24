// A workspace's retention windows as the dashboard reads and changes them (docs/adr/0048-retention-windows.md):
// thin calls to chat's GetRetention / SetRetention / PreviewRetention, and their GraphQL resolvers.
// Chat owns the rule (7 to 36,500 days, or forever) and its message; the gateway checks
// members:manage (permissions.ts) and audits a change with the windows before and after and how
// much the new windows put past their end.
import type { Clients } from '../../http/clients.ts';
import type { Resolvers } from '../../generated/graphql.ts';
import type { Member } from '../../access/members.ts';

export interface RetentionWindowsView {
  conversationDays: number | null;
  leadDays: number | null;
}

export interface RetentionPreviewView {
  conversations: number;
  messages: number;
  leads: number;
}

type Windows = { conversationDays?: number; leadDays?: number } | undefined;
const view = (w: Windows): RetentionWindowsView => ({ conversationDays: w?.conversationDays ?? null, leadDays: w?.leadDays ?? null });
const request = (w: { conversationDays?: number | null; leadDays?: number | null }) => ({
  conversationDays: w.conversationDays ?? undefined,
  leadDays: w.leadDays ?? undefined,
});

export async function getRetention(clients: Clients, m: Member): Promise<RetentionWindowsView> {
  return view((await clients.chat.getRetention({ ownerId: m.ownerId })).windows);
}

export async function previewRetention(
  clients: Clients,
  m: Member,
  windows: { conversationDays?: number | null; leadDays?: number | null },
): Promise<RetentionPreviewView> {
  const { counts } = await clients.chat.previewRetention({ ownerId: m.ownerId, windows: request(windows) });
  return { conversations: Number(counts?.conversations ?? 0), messages: Number(counts?.messages ?? 0), leads: Number(counts?.leads ?? 0) };
}

export async function setRetention(
  clients: Clients,
  m: Member,
  windows: { conversationDays?: number | null; leadDays?: number | null },
): Promise<RetentionWindowsView> {
  const before = await getRetention(clients, m);
  const saved = view((await clients.chat.setRetention({ ownerId: m.ownerId, windows: request(windows) })).windows);
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
