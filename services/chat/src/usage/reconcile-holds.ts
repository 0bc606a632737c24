// An answer the visitor received is billed, even when the process that gave it died before its
// UsageRecorded was published (docs/adr/0037-answers-billed-when-a-process-dies.md). The events of
// the answers of EVENT_BATCH_WAIT_MS (100 ms) travel in one batch (ADR 29, ADR 51); a process killed meanwhile loses that batch, and
// the answers' holds outlive their expiry. Every chat worker asks billing for the holds past their
// expiry (ListExpiredHolds) now and then, and for each:
//   - the exchange was stored (its answer keeps its request id and usage, conversation-store.ts):
//     its UsageRecorded is published again, from what was stored, and billing settles the hold at
//     the answer's recorded tokens and model, once (the usage record is keyed by the request id, so
//     the lost event arriving after all, or two workers reconciling at once, bill it once);
//   - no exchange was stored (the answer failed, the process died before the model answered, a
//     summary): the hold is released.
// Billing's own sweep releases what is still held a grace period after its expiry, for when no chat
// worker ran meanwhile.
import type { Client } from '@connectrpc/connect';
import type { Logger } from '@parley/common/logger.ts';
import { runPeriodically } from '@parley/common/periodic.ts';
import type { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type pg from 'pg';
import type { Usage } from './publishers.ts';

/** How often a worker reconciles: holds expire 10 minutes after they are made, so a minute late is soon enough. */
export const RECONCILE_HOLDS_EVERY_MS = 60_000;
/** Holds asked for per round; a larger backlog takes the next rounds. */
const BATCH = 500;

export interface ReconcileDeps {
  billing: Pick<Client<typeof BillingService>, 'listExpiredHolds' | 'releaseCredit'>;
  /** Where the exchanges are read (any pool of the service's schema: the statement only reads). */
  db: Pick<pg.Pool, 'query'>;
  publishUsage: (usage: Usage) => void;
  logger: Logger;
}

interface StoredUsage {
  requestId: string;
  /** An exchange stored before the model catalogue has no provider, cached, reasoning nor fallback. */
  usage: Omit<Usage, 'requestId' | 'occurredAt'> & { occurredAt: string };
}

/** One round: how many expired holds were settled from a stored exchange, and how many released. */
export async function reconcileHolds(deps: ReconcileDeps, limit = BATCH): Promise<{ settled: number; released: number }> {
  const { requestIds } = await deps.billing.listExpiredHolds({ limit });
  if (requestIds.length === 0) return { settled: 0, released: 0 };
  const { rows } = await deps.db.query<StoredUsage>(
    `SELECT "requestId", "usage" FROM "Message" WHERE "requestId" = ANY($1::text[]) AND "usage" IS NOT NULL`,
    [requestIds],
  );
  const stored = new Map(rows.map((r) => [r.requestId, r.usage]));
  for (const [requestId, u] of stored) {
    deps.publishUsage({
      requestId,
      ownerId: u.ownerId,
      chatbotId: u.chatbotId,
      chatbotName: u.chatbotName,
      model: u.model,
      promptTokens: Number(u.promptTokens),
      completionTokens: Number(u.completionTokens),
      occurredAt: new Date(u.occurredAt),
      apiKeyId: u.apiKeyId ?? '',
      provider: u.provider ?? '',
      cachedPromptTokens: Number(u.cachedPromptTokens ?? 0),
      reasoningTokens: Number(u.reasoningTokens ?? 0),
      fallback: u.fallback ?? false,
      ownKey: u.ownKey ?? false,
    });
  }
  let released = 0;
  for (const requestId of requestIds) {
    if (stored.has(requestId)) continue;
    if ((await deps.billing.releaseCredit({ requestId })).released) released += 1;
  }
  return { settled: stored.size, released };
}

/** Reconciles every RECONCILE_HOLDS_EVERY_MS until the returned function is called. */
export function startReconcilingHolds(deps: ReconcileDeps, everyMs = RECONCILE_HOLDS_EVERY_MS): () => void {
  let running = false;
  const round = async () => {
    if (running) return;
    running = true;
    try {
      const { settled, released } = await reconcileHolds(deps);
      if (settled || released)
        deps.logger.warn({ settled, released }, 'expired credit holds reconciled: answers whose usage was lost are billed');
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'reconciling expired credit holds failed; the next round retries');
    } finally {
      running = false;
    }
  };
  return runPeriodically(round, { firstAfterMs: Math.min(everyMs, 15_000), everyMs });
}
