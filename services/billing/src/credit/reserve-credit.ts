// Holding the largest possible cost of one answer against the owner's available credit (balance −
// reserved) before the model is called, so concurrent answers can never spend more than the owner
// has. The hold is settled by the answer's usage record (record-usage.ts), released when the answer
// fails (release-credit.ts), or swept once expired (sweep-credit-holds.ts).
import { Code, ConnectError, failedPrecondition, USER_MESSAGE_HEADER } from '@parley/common/rpc-errors.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { openAccount, type OpenAccountDeps } from '../accounts/open-account.ts';
import { parseUserId } from '../accounts/user-id.ts';
import { requiredText, tokenCount } from '../usage/record-usage.ts';

/** How long a hold lives when neither its usage record nor a release comes (the chat service crashed mid-answer). */
export const CREDIT_HOLD_TTL_MS = 10 * 60_000;

export const NOT_ENOUGH_CREDIT = 'Not enough credit.';

export interface ReserveCreditInput {
  requestId: string;
  userId: string;
  model: string;
  maxPromptTokens: number | bigint;
  maxCompletionTokens: number | bigint;
}

/** The amount held and the model's prices it was counted at (dollars per million tokens), so a caller can tell an answer's exact cost. */
export interface HeldCredit {
  amount: Prisma.Decimal;
  inputPricePerMillion: Prisma.Decimal;
  outputPricePerMillion: Prisma.Decimal;
}

export async function reserveCredit(deps: OpenAccountDeps, input: ReserveCreditInput): Promise<HeldCredit> {
  const hold = parseHold(input);
  let outcome = await holdOnExistingAccount(deps, hold);
  if (!outcome.has_account && outcome.price !== null) {
    await openAccount(deps, hold.userId);
    outcome = await holdOnExistingAccount(deps, hold);
  }
  if (outcome.price === null || outcome.input_price === null || outcome.output_price === null)
    throw failedPrecondition(`unknown model "${hold.model}": it has no price in ModelPrice`);
  const prices = { inputPricePerMillion: outcome.input_price, outputPricePerMillion: outcome.output_price };
  if (outcome.held) return { amount: outcome.held, ...prices };
  if (outcome.existing) return { amount: outcome.existing, ...prices };
  if (outcome.answered) throw failedPrecondition('This request has already been answered.');
  throw new ConnectError(NOT_ENOUGH_CREDIT, Code.ResourceExhausted, { [USER_MESSAGE_HEADER]: 'true' });
}

type ParsedHold = ReturnType<typeof parseHold>;

interface HoldOutcome {
  /** The amount this call held, if it did. */
  held: Prisma.Decimal | null;
  /** The amount of the owner's open hold under this request id (a repeated call). */
  existing: Prisma.Decimal | null;
  /** The hold's amount at the model's price; null for a model without a price. */
  price: Prisma.Decimal | null;
  /** The model's prices, dollars per million tokens; null for a model without a price. */
  input_price: Prisma.Decimal | null;
  output_price: Prisma.Decimal | null;
  has_account: boolean;
  /** The request id's usage was already recorded (the hold was settled). */
  answered: boolean;
}

async function holdOnExistingAccount(deps: OpenAccountDeps, hold: ParsedHold): Promise<HoldOutcome> {
  try {
    const [outcome] = await deps.prisma.$queryRaw<HoldOutcome[]>(holdStatement(hold));
    return outcome;
  } catch (err) {
    // A concurrent call with the same request id committed its hold first: this statement was undone
    // as a whole (its reservedCredit increase included), and the first call's hold is the answer.
    if (!isUniqueViolation(err)) throw err;
    const existing = await deps.prisma.creditReservation.findUnique({ where: { requestId: hold.requestId } });
    if (existing?.userId !== hold.userId) throw failedPrecondition('request_id is already used by another hold.');
    const price = await deps.prisma.modelPrice.findUnique({ where: { modelId: hold.model } });
    return {
      held: null,
      existing: existing.amount,
      price: existing.amount,
      input_price: price?.inputPricePerMillion ?? null,
      output_price: price?.outputPricePerMillion ?? null,
      has_account: true,
      answered: false,
    };
  }
}

/**
 * One statement: the owner's reservedCredit rises by the hold's amount only while the balance minus
 * what is already reserved covers it (the condition is checked again on the locked row, so
 * concurrent holds queue on the account and each sees the previous one's), and the hold row is
 * inserted from that update's result. A repeated request id holds nothing more. The hold row has no
 * ON CONFLICT on purpose: a concurrent call with the same request id fails on its unique key and
 * takes its own increase back with it.
 */
function holdStatement(hold: ParsedHold): Prisma.Sql {
  return Prisma.sql`
    WITH price AS (
      SELECT ${hold.maxPromptTokens}::numeric * "inputPricePerMillion" * 0.000001
           + ${hold.maxCompletionTokens}::numeric * "outputPricePerMillion" * 0.000001 AS amount,
             "inputPricePerMillion" AS input_price, "outputPricePerMillion" AS output_price
        FROM "ModelPrice" WHERE "modelId" = ${hold.model}
    ), existing AS (
      SELECT "amount" FROM "CreditReservation" WHERE "requestId" = ${hold.requestId} AND "userId" = ${hold.userId}
    ), answered AS (
      SELECT 1 FROM "UsageRecord" WHERE "requestId" = ${hold.requestId}
    ), reserved AS (
      UPDATE "Account" AS a SET "reservedCredit" = a."reservedCredit" + p.amount, "updatedAt" = now()
        FROM price AS p
       WHERE a."userId" = ${hold.userId}
         AND a."creditBalance" - a."reservedCredit" >= p.amount
         AND NOT EXISTS (SELECT 1 FROM existing) AND NOT EXISTS (SELECT 1 FROM answered)
      RETURNING p.amount
    ), held AS (
      INSERT INTO "CreditReservation" ("requestId", "userId", "amount", "expiresAt")
      SELECT ${hold.requestId}, ${hold.userId}, r.amount, now() + ${CREDIT_HOLD_TTL_MS} * interval '1 millisecond' FROM reserved AS r
      RETURNING "amount"
    )
    SELECT (SELECT "amount" FROM held) AS held, (SELECT "amount" FROM existing) AS existing, (SELECT amount FROM price) AS price,
           (SELECT input_price FROM price) AS input_price, (SELECT output_price FROM price) AS output_price,
           EXISTS (SELECT 1 FROM "Account" WHERE "userId" = ${hold.userId}) AS has_account,
           EXISTS (SELECT 1 FROM answered) AS answered`;
}

/** Postgres's unique_violation (23505), as Prisma reports it for a raw query. */
function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof Prisma.PrismaClientKnownRequestError)) return false;
  const cause = (err.meta?.driverAdapterError as { cause?: { originalCode?: string } } | undefined)?.cause;
  return err.code === 'P2002' || cause?.originalCode === '23505';
}

export function parseHold(input: ReserveCreditInput) {
  return {
    requestId: requiredText(input.requestId, 'request_id', 200),
    userId: parseUserId(input.userId),
    model: requiredText(input.model, 'model', 200),
    maxPromptTokens: tokenCount(input.maxPromptTokens, 'max_prompt_tokens'),
    maxCompletionTokens: tokenCount(input.maxCompletionTokens, 'max_completion_tokens'),
  };
}
