// GET /api/user/export: one JSON file with everything Parley holds about the signed-in owner — the
// account and its signed-in devices (auth), plan, credit, subscriptions and credit ledger (billing),
// chatbots with their knowledge (chatbot), and every usage record (billing, a page at a time).
// Usage can run to millions of records, so the file is written as it is read: everything but the
// usage first, then the records page by page, honouring backpressure. Money stays exact decimal
// strings. Visitors' conversations are not part of it (they are the visitors' data; the History tab
// shows them).
import { once } from 'node:events';
import type { Response } from 'express';
import type { UsageRecord } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import { chatbotView, isoDate, type ChatbotView } from './chatbots.ts';
import type { Clients } from './clients.ts';
import { authenticate } from './sessions.ts';
import { subscriptionOf } from './users.ts';

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
  knowledgeBase: { textEntries: view.knowledgeBase?.textEntries ?? [] },
});

/** Everything but the usage records, read before the first byte is sent so most failures are a clean error. */
async function head(clients: Clients, token: string | undefined, now: Date) {
  const user = await authenticate(clients, token);
  const [{ sessions }, billing, { chatbots }, firstPage] = await Promise.all([
    clients.auth.listSessions({ userId: user.id, currentToken: token ?? '' }),
    clients.billing.exportOwnerData({ userId: user.id }),
    clients.chatbot.listChatbots({ ownerId: user.id, includeKnowledgeBase: true }),
    clients.billing.listUsageRecords({ userId: user.id, pageSize: PAGE_SIZE }),
  ]);
  const account = billing.account;
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
    chatbots: chatbots.map((c) => exportedChatbot(chatbotView(c))),
  };
  return { userId: user.id, document, firstPage };
}

/**
 * Writes the owner's export to `res` as an attachment. A failure before the first byte is thrown (a
 * clean error answer); one after it cuts the download off, so a browser never saves a half file as whole.
 */
export async function sendOwnerExport(
  clients: Clients,
  token: string | undefined,
  res: Response,
  logger: Logger,
  now = new Date(),
): Promise<void> {
  const { userId, document, firstPage } = await head(clients, token, now);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(now)}"`);
  const write = async (chunk: string) => {
    if (!res.write(chunk)) await once(res, 'drain');
  };
  // The document without its closing brace, then the usage records as its last field.
  const opening = JSON.stringify(document, null, 2);
  await write(`${opening.slice(0, opening.lastIndexOf('}')).trimEnd()},\n  "usageRecords": [`);
  let page = firstPage;
  let first = true;
  try {
    for (;;) {
      for (const record of page.records) {
        await write(`${first ? '\n' : ',\n'}    ${JSON.stringify(usageRecordView(record))}`);
        first = false;
      }
      if (!page.nextCursor || res.destroyed) break;
      page = await clients.billing.listUsageRecords({ userId, cursor: page.nextCursor, pageSize: PAGE_SIZE });
    }
  } catch (err) {
    logger.error({ err, userId }, 'owner export failed part-way; the download was cut off');
    res.destroy();
    return;
  }
  res.end(`${first ? '' : '\n  '}]\n}\n`);
}
