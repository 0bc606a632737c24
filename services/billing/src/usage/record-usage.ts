// Recording one answered message's use of a language model and paying for it from the owner's
// credit: the usage record, its day in UsageDaily, the settlement of the answer's credit hold, the
// debit and its ledger entry are written by one statement (in one transaction with the opening of
// a missing account), once per request id however often the event is delivered (retries,
// duplicates, concurrent workers).
import { failedPrecondition, invalid } from '@parley/common/rpc-errors.ts';
import { Prisma, type PrismaClient, type UsageRecord } from '../generated/prisma/client.ts';
import { openAccountInTransaction } from '../accounts/open-account.ts';
import { parseUserId } from '../accounts/user-id.ts';

export interface RecordUsageDeps {
  prisma: PrismaClient;
  /** Exact decimal string of dollars (INITIAL_CREDIT), for an account opened on the way. */
  initialCredit: string;
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
}

export interface RecordUsageResult {
  /** False when this request id had already been recorded: nothing was changed. */
  recorded: boolean;
  usageRecord: UsageRecord;
}

export const USAGE_DEBIT_REASON = 'usage';

/** The ledger's idempotency key for the debit of one answer. */
export const usageDebitReference = (requestId: string) => `usage:${requestId}`;

/**
 * Tokens per field of one answer. Far above any model's context window, and low enough that the
 * counts fit INTEGER columns and the cost fits NUMERIC(20,10) at any stored price.
 */
export const MAX_TOKENS = 1_000_000_000;

export async function recordUsage(deps: RecordUsageDeps, input: RecordUsageInput): Promise<RecordUsageResult> {
  const usage = parseUsage(input);
  return (await recordOnce(deps.prisma, usage)) ?? recordOpeningAccount(deps, usage);
}

type ParsedUsage = ReturnType<typeof parseUsage>;

/**
 * The debit statement and what its outcome means, for both paths: on its own (the usual case, an
 * owner whose account exists: one round trip, committed on its own) or inside the transaction that
 * opens the account. Null when there is no account yet (nothing was written).
 */
async function recordOnce(db: PrismaClient | Prisma.TransactionClient, usage: ParsedUsage): Promise<RecordUsageResult | null> {
  const [outcome] = await db.$queryRaw<RecordOutcome[]>(recordStatement(usage));
  // A configuration problem, not a bad event: once the price is added, the failed job can be retried.
  if (!outcome.priced) throw failedPrecondition(`unknown model "${usage.model}": it has no price in ModelPrice`);
  if (outcome.id) return { recorded: true, usageRecord: usageRecordOf(outcome) };
  if (!outcome.has_account) return null;
  return { recorded: false, usageRecord: await db.usageRecord.findUniqueOrThrow({ where: { requestId: usage.requestId } }) };
}

type RecordOutcome = Partial<UsageRecord> & { priced: boolean; has_account: boolean };

function usageRecordOf(outcome: RecordOutcome): UsageRecord {
  const { priced: _priced, has_account: _hasAccount, ...usageRecord } = outcome;
  return usageRecord as UsageRecord;
}

/**
 * Billing's debit, written once for both paths: the usage record, costed by Postgres from the
 * model's price; the owner's day in UsageDaily; the settlement of the answer's credit hold (deleted,
 * and the account's reservedCredit lowered by it); the debit of the balance and its ledger entry.
 * All of it or nothing: when the request id is already recorded (or the owner has no account) no
 * record is inserted and every other step reads from that empty insert.
 *
 * Costs are NUMERIC: integer tokens × a price with 4 decimals × 0.000001 is exact at 10 decimals
 * (multiplying, unlike dividing, never rounds). A concurrent duplicate waits on the request id's
 * unique index for the first one's commit and then inserts nothing, so it debits nothing; concurrent
 * debits of one account queue on its row and each applies to the balance the previous one left.
 * A hold released or swept at the same moment is deleted by one statement only, and only that one
 * lowers reservedCredit.
 */
function recordStatement(usage: ParsedUsage): Prisma.Sql {
  return Prisma.sql`
    WITH inserted AS (
      INSERT INTO "UsageRecord" ("id", "requestId", "userId", "chatbotId", "chatbotName", "model",
        "promptTokens", "completionTokens", "totalTokens", "promptCost", "completionCost", "totalCost", "occurredAt")
      SELECT gen_random_uuid(), ${usage.requestId}, ${usage.userId}, ${usage.chatbotId}, ${usage.chatbotName}, p."modelId",
        t.prompt, t.completion, t.prompt + t.completion,
        t.prompt * p."inputPricePerMillion" * 0.000001,
        t.completion * p."outputPricePerMillion" * 0.000001,
        t.prompt * p."inputPricePerMillion" * 0.000001 + t.completion * p."outputPricePerMillion" * 0.000001,
        ${usage.occurredAt.toISOString()}::timestamptz
      FROM "ModelPrice" p, (SELECT ${usage.promptTokens}::integer AS prompt, ${usage.completionTokens}::integer AS completion) t
      WHERE p."modelId" = ${usage.model} AND EXISTS (SELECT 1 FROM "Account" WHERE "userId" = ${usage.userId})
      ON CONFLICT ("requestId") DO NOTHING
      RETURNING *
    ), daily AS (
      INSERT INTO "UsageDaily" AS d ("userId", "chatbotId", "day", "requestCount", "promptTokens", "completionTokens", "promptCost", "completionCost")
      SELECT i."userId", i."chatbotId", (i."occurredAt" AT TIME ZONE 'UTC')::date, 1, i."promptTokens", i."completionTokens", i."promptCost", i."completionCost"
        FROM inserted AS i
      ON CONFLICT ("userId", "day", "chatbotId") DO UPDATE SET
        "requestCount" = d."requestCount" + 1,
        "promptTokens" = d."promptTokens" + excluded."promptTokens",
        "completionTokens" = d."completionTokens" + excluded."completionTokens",
        "promptCost" = d."promptCost" + excluded."promptCost",
        "completionCost" = d."completionCost" + excluded."completionCost"
    ), settled AS (
      DELETE FROM "CreditReservation" AS r USING inserted AS i
       WHERE r."requestId" = i."requestId" AND r."userId" = i."userId"
      RETURNING r."amount"
    ), debit AS (
      -- The balance may go negative: the answer was already given and must be paid for.
      UPDATE "Account" AS a SET "creditBalance" = a."creditBalance" - i."totalCost",
             "reservedCredit" = a."reservedCredit" - coalesce((SELECT "amount" FROM settled), 0),
             "updatedAt" = now()
        FROM inserted AS i WHERE a."userId" = i."userId"
    ), ledger AS (
      INSERT INTO "CreditLedgerEntry" ("id", "userId", "amount", "reason", "reference")
      SELECT gen_random_uuid(), i."userId", -i."totalCost", ${USAGE_DEBIT_REASON}, ${usageDebitReference(usage.requestId)} FROM inserted AS i
    )
    SELECT i.*, EXISTS (SELECT 1 FROM "ModelPrice" WHERE "modelId" = ${usage.model}) AS priced,
           EXISTS (SELECT 1 FROM "Account" WHERE "userId" = ${usage.userId}) AS has_account
      FROM (SELECT 1) AS one LEFT JOIN inserted AS i ON true`;
}

/**
 * An owner without an account yet (usage reported before their signup was processed): opens it,
 * then runs the same statement, in one transaction (an unknown model undoes the opening with it).
 */
function recordOpeningAccount(deps: RecordUsageDeps, usage: ParsedUsage): Promise<RecordUsageResult> {
  return deps.prisma.$transaction(async (tx) => {
    await openAccountInTransaction(tx, usage.userId, deps.initialCredit);
    const result = await recordOnce(tx, usage);
    // The account was opened (or found) under the owner's lock in this transaction.
    if (!result) throw new Error(`no billing account for "${usage.userId}" right after opening it`);
    return result;
  });
}

/** Validates the event; a bad one throws InvalidArgument (it would fail the same way on every retry). */
export function parseUsage(input: RecordUsageInput) {
  const requestId = requiredText(input.requestId, 'request_id', 200);
  const userId = parseUserId(input.ownerId);
  const chatbotId = requiredText(input.chatbotId, 'chatbot_id', 100);
  const chatbotName = requiredText(input.chatbotName, 'chatbot_name', 200);
  const model = requiredText(input.model, 'model', 200);
  const promptTokens = tokenCount(input.promptTokens, 'prompt_tokens');
  const completionTokens = tokenCount(input.completionTokens, 'completion_tokens');
  const occurredAt = input.occurredAt;
  if (!occurredAt || Number.isNaN(occurredAt.getTime())) throw invalid('occurred_at is required.');
  return { requestId, userId, chatbotId, chatbotName, model, promptTokens, completionTokens, occurredAt };
}

export function requiredText(raw: string, name: string, maxChars: number): string {
  const value = raw.trim();
  if (!value) throw invalid(`${name} is required.`);
  if ([...value].length > maxChars) throw invalid(`${name} must be at most ${maxChars} characters.`);
  return value;
}

export function tokenCount(raw: number | bigint, name: string): number {
  const value = typeof raw === 'bigint' ? raw : Number.isInteger(raw) ? BigInt(raw) : undefined;
  if (value === undefined || value < 0n || value > BigInt(MAX_TOKENS)) {
    throw invalid(`${name} must be a whole number from 0 to ${MAX_TOKENS}, got ${String(raw)}.`);
  }
  return Number(value);
}
