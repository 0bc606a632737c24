// Recording one answered message's use of a language model and paying for it from the owner's
// credit: the usage record, its day in UsageDaily, the settlement of the answer's credit hold, the
// debit and its ledger entry are written by one statement for a whole batch of answers (in one
// transaction with the opening of a missing account), once per request id however often the event
// is delivered (retries, duplicates, concurrent workers).
import { PROVIDERS } from '@parley/common/models/catalogue.ts';
import { failedPrecondition, invalid } from '@parley/common/rpc-errors.ts';
import type { Prisma, PrismaClient, UsageRecord } from '../generated/prisma/client.ts';
import { openAccountInTransaction } from '../core/open-account.ts';
import { requiredText, tokenCount } from '../core/usage-input.ts';
import { parseOwnerId } from '../core/owner-id.ts';

export interface RecordUsageDeps {
  prisma: PrismaClient;
  /** Exact decimal string of dollars (INITIAL_CREDIT), for an account opened on the way. */
  initialCredit: string;
  /** OWN_KEY_PLATFORM_FEE: what an answer on the workspace's own provider key costs (exact decimal dollars); absent: 0. */
  ownKeyFee?: string;
}

/** What the chat service reports for one answer (the UsageRecorded event, decoded). */
export interface RecordUsageInput {
  requestId: string;
  ownerId: string;
  chatbotId: string;
  chatbotName: string;
  model: string;
  promptTokens: number | bigint;
  completionTokens: number | bigint;
  occurredAt: Date | undefined;
  /** The developer API's key the answer was asked through; absent or '' for the public chat. */
  apiKeyId?: string;
  /** The catalogue's provider of `model`; absent or '' (an older chat service): openai. */
  provider?: string;
  cachedPromptTokens?: number | bigint;
  reasoningTokens?: number | bigint;
  /** Answered on the workspace's own provider key. */
  ownKey?: boolean;
  /** The chatbot's fallback model answered. */
  fallback?: boolean;
}

export interface RecordUsageResult {
  /** False when this request id had already been recorded: nothing was changed. */
  recorded: boolean;
  /** Recorded at the default model's price: its model has no price. */
  defaulted: boolean;
  usageRecord: UsageRecord;
}

export const USAGE_DEBIT_REASON = 'usage';

/** The ledger's idempotency key for the debit of one answer (settle_usage writes the same). */
export const usageDebitReference = (requestId: string) => `usage:${requestId}`;

export async function recordUsage(deps: RecordUsageDeps, input: RecordUsageInput): Promise<RecordUsageResult> {
  const usage = parseUsage(input);
  const [outcome] = await settle(deps.prisma, [usage], deps.ownKeyFee);
  if (outcome === 'no-account') return recordOpeningAccount(deps, usage);
  return resultOf(deps.prisma, usage, outcome);
}

/**
 * What recording one usage in a batch came to: recorded; recorded at the default model's price
 * (defaulted: its model has no price, the usage is kept and paid all the same); or already recorded
 * before (duplicate).
 */
export type BatchOutcome = 'recorded' | 'defaulted' | 'duplicate';

/**
 * Records a batch of usages (the usage worker's jobs that arrive at once) in ONE statement, each
 * once: the owners' account rows are updated once per owner, however many of their answers the
 * batch settles. An owner without an account yet has it opened and their usage recorded on its own
 * (recordUsage). Throws when the batch cannot be written (the caller records each on its own then).
 */
export async function recordUsageBatch(deps: RecordUsageDeps, usages: readonly ParsedUsage[]): Promise<(BatchOutcome | Error)[]> {
  const outcomes = await settle(deps.prisma, usages, deps.ownKeyFee);
  return Promise.all(
    usages.map(async (usage, i): Promise<BatchOutcome | Error> => {
      const outcome = outcomes[i];
      if (outcome === 'recorded' || outcome === 'defaulted' || outcome === 'duplicate') return outcome;
      if (outcome === 'unpriced') return unpriced(usage);
      try {
        const { recorded, defaulted } = await recordOpeningAccount(deps, usage);
        return !recorded ? 'duplicate' : defaulted ? 'defaulted' : 'recorded';
      } catch (err) {
        return err as Error;
      }
    }),
  );
}

/** A validated usage event (parseUsage). */
export type ParsedUsage = ReturnType<typeof parseUsage>;
type SettleOutcome = BatchOutcome | 'no-account' | 'unpriced';

/**
 * Billing's debit (the settle_usage function of the migration "money_in_batches"): the usage records,
 * costed by Postgres from the model's price; their days in UsageDaily; the settlement of their credit
 * holds (deleted, and the accounts' reservedCredit lowered by them); the debits and their ledger
 * entries. All of it or nothing, each request id once: a concurrent duplicate waits on the request
 * id's unique index for the first one's commit and then inserts nothing, so it debits nothing. The
 * owners' account rows are locked first, in order, as every writer of money does. Outcomes in the
 * order of `usages`.
 */
async function settle(
  db: PrismaClient | Prisma.TransactionClient,
  usages: readonly ParsedUsage[],
  ownKeyFee = '0',
): Promise<SettleOutcome[]> {
  // An own-key answer costs the fee (its cost column), whatever its model's price (the migration "own_key_fee").
  // The function reads the owner as "userId", its columns' name.
  const given = usages.map(({ ownerId, ...u }) => ({
    ...u,
    userId: ownerId,
    occurredAt: u.occurredAt.toISOString(),
    ownKeyFee: u.ownKey ? ownKeyFee : null,
  }));
  const rows = await db.$queryRaw<{ o_request_id: string; o_outcome: SettleOutcome }[]>`
    SELECT * FROM settle_usage(${JSON.stringify(given)}::jsonb)`;
  const byRequest = new Map(rows.map((r) => [r.o_request_id, r.o_outcome]));
  // A request id given twice is written once, for its first place; the others are duplicates.
  const seen = new Set<string>();
  return usages.map((u) => {
    if (seen.has(u.requestId)) return 'duplicate';
    seen.add(u.requestId);
    return byRequest.get(u.requestId) ?? 'duplicate';
  });
}

/** A configuration problem (no price and no default price), not a bad event: once a price is added, the failed job can be retried. */
const unpriced = (usage: ParsedUsage) => failedPrecondition(`unknown model "${usage.model}": it has no price in ModelPrice`);

async function resultOf(
  db: PrismaClient | Prisma.TransactionClient,
  usage: ParsedUsage,
  outcome: SettleOutcome,
): Promise<RecordUsageResult> {
  if (outcome === 'unpriced') throw unpriced(usage);
  const usageRecord = await db.usageRecord.findUniqueOrThrow({ where: { requestId: usage.requestId } });
  return { recorded: outcome === 'recorded' || outcome === 'defaulted', defaulted: outcome === 'defaulted', usageRecord };
}

/**
 * An owner without an account yet (usage reported before their signup was processed): opens it,
 * then runs the same statement, in one transaction (an unknown model undoes the opening with it).
 */
function recordOpeningAccount(deps: RecordUsageDeps, usage: ParsedUsage): Promise<RecordUsageResult> {
  return deps.prisma.$transaction(async (tx) => {
    await openAccountInTransaction(tx, usage.ownerId, deps.initialCredit);
    const [outcome] = await settle(tx, [usage], deps.ownKeyFee);
    // The account was opened (or found) under the owner's lock in this transaction.
    if (outcome === 'no-account') throw new Error(`no billing account for "${usage.ownerId}" right after opening it`);
    return resultOf(tx, usage, outcome);
  });
}

/** Validates the event; a bad one throws InvalidArgument (it would fail the same way on every retry). */
export function parseUsage(input: RecordUsageInput) {
  const requestId = requiredText(input.requestId, 'request_id', 200);
  const ownerId = parseOwnerId(input.ownerId);
  const chatbotId = requiredText(input.chatbotId, 'chatbot_id', 100);
  const chatbotName = requiredText(input.chatbotName, 'chatbot_name', 200);
  const model = requiredText(input.model, 'model', 200);
  const promptTokens = tokenCount(input.promptTokens, 'prompt_tokens');
  const completionTokens = tokenCount(input.completionTokens, 'completion_tokens');
  const occurredAt = input.occurredAt;
  if (!occurredAt || Number.isNaN(occurredAt.getTime())) throw invalid('occurred_at is required.');
  const apiKeyId = input.apiKeyId ? requiredText(input.apiKeyId, 'api_key_id', 100) : null;
  const provider = input.provider || 'openai';
  if (!(PROVIDERS as readonly string[]).includes(provider))
    throw invalid(`provider must be one of ${PROVIDERS.join(', ')}, got "${provider.slice(0, 40)}".`);
  const cachedPromptTokens = tokenCount(input.cachedPromptTokens ?? 0, 'cached_prompt_tokens');
  const reasoningTokens = tokenCount(input.reasoningTokens ?? 0, 'reasoning_tokens');
  const ownKey = input.ownKey ?? false;
  const fallback = input.fallback ?? false;
  return {
    requestId,
    ownerId,
    chatbotId,
    chatbotName,
    model,
    promptTokens,
    completionTokens,
    occurredAt,
    apiKeyId,
    provider,
    cachedPromptTokens,
    reasoningTokens,
    ownKey,
    fallback,
  };
}
