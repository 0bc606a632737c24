// GET /api/user/export: one JSON file with everything Parley holds about the signed-in owner — the
// account and its signed-in devices (auth), plan, credit, subscriptions and credit ledger (billing),
// chatbots with their knowledge (chatbot), and every usage record (billing, a page at a time) — for
// the personal workspace and each other workspace the person owns (`workspaces`, with its members,
// invitations and audit log; each usage record names its workspace).
// Usage can run to millions of records, so the file is written as it is read: everything but the
// usage first, then the records page by page, honouring backpressure. Money stays exact decimal
// strings. Visitors' conversations are not part of it (they are the visitors' data; the History tab
// shows them).
import { once } from 'node:events';
import type { Response } from 'express';
import { create } from '@bufbuild/protobuf';
import { OwnedWorkspaceExportSchema, type OwnedWorkspaceExport } from '@parley/proto/parley/auth/v1/workspaces_pb.js';
import type { UsageRecord } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { setCurrentRole } from '@parley/common/context.ts';
import type { Logger } from '@parley/common/logger.ts';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { isoDate } from '../../http/dates.ts';
import { chatbotView, type ChatbotView } from '../chatbots/chatbots.ts';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { Clients } from '../../http/clients.ts';
import { subscriptionOf, type AuthUser } from '../../access/users.ts';

/** Bumped when the file's shape changes in a way a reader must know about. */
export const EXPORT_FORMAT = 'parley-owner-export/1';
const PAGE_SIZE = 1000;

export const exportFileName = (now: Date) => `parley-data-${now.toISOString().slice(0, 10)}.json`;

const usageRecordView = (r: UsageRecord) => ({
  requestId: r.requestId,
  timestamp: isoDate(r.occurredAt),
  chatbotId: r.chatbotId,
  chatbotName: r.chatbotName,
  model: r.model,
  modelDisplayName: r.modelDisplayName,
  promptTokens: Number(r.promptTokens),
  completionTokens: Number(r.completionTokens),
  totalTokens: Number(r.totalTokens),
  promptCost: r.promptCost,
  completionCost: r.completionCost,
  totalCost: r.totalCost,
});

const exportedChatbot = (view: ChatbotView) => ({
  id: view.id,
  uniqueId: view.uniqueId,
  name: view.name,
  profilePicture: view.profilePicture,
  isActive: view.isActive,
  language: view.language,
  interactions: view.interactions,
  lastInteraction: view.lastInteraction,
  createdAt: view.createdAt,
  updatedAt: view.updatedAt,
  instructions: view.instructions,
  temperature: view.temperature,
  welcomeMessage: view.welcomeMessage,
  suggestedQuestions: view.suggestedQuestions,
  noAnswerMessage: view.noAnswerMessage,
  appearance: view.appearance,
  allowedDomains: view.allowedDomains,
  standalonePage: view.standalonePage,
  limits: view.limits,
  modelId: view.model.id,
  fallbackModelId: view.fallbackModel?.id ?? null,
  knowledgeBase: { textEntries: view.knowledgeBase?.textEntries ?? [] },
});

/** The billing, chatbots and first usage page of one owned workspace. */
async function ownedData(clients: Clients, catalogue: ModelCatalogue, ownerId: string) {
  const [billing, { chatbots }, firstPage] = await Promise.all([
    clients.billing.exportOwnerData({ ownerId }),
    clients.chatbot.listChatbots({ ownerId, includeKnowledgeBase: true }),
    clients.billing.listUsageRecords({ ownerId, pageSize: PAGE_SIZE }),
  ]);
  const account = billing.account;
  return {
    billing: {
      subscription: account ? subscriptionOf(account) : 'free',
      creditBalance: account?.creditBalance ?? '0',
      lastCreditRefill: isoDate(account?.lastCreditRefill),
      stripeCustomerId: billing.stripeCustomerId || null,
      subscriptions: billing.subscriptions.map((s) => ({
        id: s.id,
        status: s.status,
        statusAt: isoDate(s.statusAt),
        createdAt: isoDate(s.createdAt),
      })),
      creditLedger: billing.creditLedger.map((e) => ({ amount: e.amount, reason: e.reason, createdAt: isoDate(e.createdAt) })),
    },
    chatbots: chatbots.map((c) => exportedChatbot(chatbotView(c, catalogue))),
    firstPage,
  };
}

/**
 * The workspaces the person owns, with their members, invitations and audit log. An auth service
 * that predates workspaces knows only the personal one, which every person owns there.
 */
async function ownedWorkspaces(clients: Clients, userId: string): Promise<OwnedWorkspaceExport[]> {
  try {
    return (await clients.workspaces.exportOwnedWorkspaces({ userId })).workspaces;
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.Unimplemented)
      return [create(OwnedWorkspaceExportSchema, { workspace: { id: userId, personal: true, role: 'owner' } })];
    throw err;
  }
}

/** Everything but the usage records, read before the first byte is sent so most failures are a clean error. */
/** The signed-in person the file is for, and the token of the session that asks (the export's own device). */
export interface Exporter {
  user: AuthUser;
  token: string | undefined;
}

async function head(clients: Clients, catalogue: ModelCatalogue, { user, token }: Exporter, now: Date) {
  const [{ sessions }, owned] = await Promise.all([
    clients.auth.listSessions({ userId: user.id, currentToken: token ?? '' }),
    ownedWorkspaces(clients, user.id),
  ]);
  // Every workspace read here is the person's own: the calls carry the owner's role.
  setCurrentRole('owner');
  const data = await Promise.all(
    owned.map(async (o) => ({ owned: o, ...(await ownedData(clients, catalogue, o.workspace?.id ?? user.id)) })),
  );
  // The personal workspace's data stays where the file has always had it; every other owned one has its own entry.
  const personal = data.find((d) => d.owned.workspace?.id === user.id);
  const document = {
    format: EXPORT_FORMAT,
    exportedAt: now.toISOString(),
    account: {
      id: user.id,
      email: user.email,
      name: user.name,
      createdAt: isoDate(user.createdAt),
      sessions: sessions.map((s) => ({ createdAt: isoDate(s.createdAt), expiresAt: isoDate(s.expiresAt), clientIp: s.clientIp || null })),
    },
    billing: personal?.billing ?? null,
    chatbots: personal?.chatbots ?? [],
    workspaces: data.map(({ owned: o, billing, chatbots }) => ({
      id: o.workspace?.id ?? '',
      name: o.workspace?.name ?? '',
      personal: o.workspace?.personal ?? false,
      createdAt: isoDate(o.workspace?.createdAt),
      members: o.members.map((m) => ({ userId: m.userId, email: m.email, name: m.name, role: m.role, joinedAt: isoDate(m.joinedAt) })),
      invitations: o.invitations.map((i) => ({
        email: i.email,
        role: i.role,
        invitedBy: i.invitedBy,
        createdAt: isoDate(i.createdAt),
        expiresAt: isoDate(i.expiresAt),
      })),
      auditLog: o.auditEvents.map((e) => ({
        actorEmail: e.actorEmail || null,
        action: e.action,
        target: e.target,
        details: e.detailsJson,
        clientIp: e.clientIp || null,
        createdAt: isoDate(e.createdAt),
      })),
      ...(o.workspace?.id === user.id ? {} : { billing, chatbots }),
    })),
  };
  const usage = data.map((d) => ({ workspaceId: d.owned.workspace?.id ?? user.id, firstPage: d.firstPage }));
  return { userId: user.id, document, usage };
}

/**
 * Writes the owner's export to `res` as an attachment. A failure before the first byte is thrown (a
 * clean error answer); one after it cuts the download off, so a browser never saves a half file as whole.
 */
export async function sendOwnerExport(
  clients: Clients,
  catalogue: ModelCatalogue,
  exporter: Exporter,
  res: Response,
  logger: Logger,
  now = new Date(),
): Promise<void> {
  const { userId, document, usage } = await head(clients, catalogue, exporter, now);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(now)}"`);
  const write = async (chunk: string) => {
    if (!res.write(chunk)) await once(res, 'drain');
  };
  // The document without its closing brace, then the usage records of every owned workspace as its last field.
  const opening = JSON.stringify(document, null, 2);
  await write(`${opening.slice(0, opening.lastIndexOf('}')).trimEnd()},\n  "usageRecords": [`);
  let first = true;
  try {
    for (const { workspaceId, firstPage } of usage) {
      let page = firstPage;
      for (;;) {
        for (const record of page.records) {
          await write(`${first ? '\n' : ',\n'}    ${JSON.stringify({ ...usageRecordView(record), workspaceId })}`);
          first = false;
        }
        if (!page.nextCursor || res.destroyed) break;
        page = await clients.billing.listUsageRecords({ ownerId: workspaceId, cursor: page.nextCursor, pageSize: PAGE_SIZE });
      }
    }
  } catch (err) {
    logger.error({ err, userId }, 'owner export failed part-way; the download was cut off');
    res.destroy();
    return;
  }
  res.end(`${first ? '' : '\n  '}]\n}\n`);
}
