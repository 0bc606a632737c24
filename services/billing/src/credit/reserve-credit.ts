// Holding the largest possible cost of one answer before the model is called, against the owner's
// available credit (balance − held) and, with a daily spend limit, against the chatbot's spend today
// (spent + held), so concurrent answers can never spend more than the owner has nor pass the limit.
// The hold is settled by the answer's usage record (record-usage.ts), released when the answer fails
// (release-credit.ts), or swept once expired (sweep-credit-holds.ts).
//
// Holds arriving at once go to the database together (group commit, services/common/src/batcher.ts):
// one statement (the hold_credit function of the migration "money_in_batches") holds a whole batch
// in arrival order under the owners' account locks, so one owner's busy chatbots queue on one lock
// per batch, not per message (docs/adr/0022-money-in-batches.md), and writes each owner's account
// once per batch (migration "hold_credit_one_account_update", ADR 71). The statement goes through the
// driver on Prisma's own pool: through Prisma's raw query it cost 2–4 × the CPU and up to 1.5 ms more
// on every message's path (docs/benchmarks.md).
import type pg from 'pg';
import { groupCommit } from '@parley/common/batcher.ts';
import {
  Code,
  ConnectError,
  failedPrecondition,
  invalid,
  SPEND_LIMIT_REACHED_HEADER,
  USER_MESSAGE_HEADER,
} from '@parley/common/rpc-errors.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { openAccount, type OpenAccountDeps } from '../core/open-account.ts';
import { parseOwnerId } from '../core/owner-id.ts';
import { requiredText, tokenCount } from '../core/usage-input.ts';

/** How long a hold lives when neither its usage record nor a release comes (the chat service crashed mid-answer). */
export const CREDIT_HOLD_TTL_MS = 10 * 60_000;

/** Holds sent to the database in one statement at most. */
export const HOLD_BATCH_MAX = 100;

export const NOT_ENOUGH_CREDIT = 'Not enough credit.';
export const SPEND_LIMIT_REACHED = "The chatbot's daily spend limit is reached.";

/** Largest daily spend limit accepted, in dollars: far above any chatbot's, and exact in NUMERIC(20,10). */
const MAX_SPEND_LIMIT = new Prisma.Decimal('1000000000');
const DECIMAL = /^\d{1,10}(\.\d{1,10})?$/;

export interface ReserveCreditInput {
  requestId: string;
  ownerId: string;
  model: string;
  maxPromptTokens: number | bigint;
  maxCompletionTokens: number | bigint;
  /** The answering chatbot; the hold counts in its spend today. */
  chatbotId?: string;
  /** Exact decimal dollars; empty or absent: no limit. */
  dailySpendLimit?: string;
  /** Every model that may answer runs on the workspace's own provider key: the hold is the own-key fee. */
  ownKey?: boolean;
}

/** The amount held and the model's prices it was counted at (dollars per million tokens). */
export interface HeldCredit {
  amount: Prisma.Decimal;
  inputPricePerMillion: Prisma.Decimal;
  outputPricePerMillion: Prisma.Decimal;
}

type ParsedHold = ReturnType<typeof parseHold> & { ownKeyFee: string | null };

type HoldOutcomeKind = 'held' | 'existing' | 'answered' | 'conflict' | 'no-account' | 'unpriced' | 'no-credit' | 'spend-limit';

/** A row of hold_credit as the driver reads it. */
interface HoldRow {
  o_request_id: string;
  o_outcome: HoldOutcomeKind;
  o_amount: string | null;
  o_input_price: string | null;
  o_output_price: string | null;
}

interface HoldOutcome {
  o_request_id: string;
  o_outcome: HoldOutcomeKind;
  o_amount: Prisma.Decimal | null;
  o_input_price: Prisma.Decimal | null;
  o_output_price: Prisma.Decimal | null;
}

export interface CreditHolds {
  /** Holds one answer's largest cost, or throws the refusal (see the outcomes of hold_credit). */
  reserve(input: ReserveCreditInput): Promise<HeldCredit>;
}

export type CreditHoldsDeps = OpenAccountDeps & {
  /** The service's main pool (Prisma's), for the hold's one statement. */
  pool: pg.Pool;
  /** How long a hold lasts (CREDIT_HOLD_TTL_MS); CREDIT_HOLD_TTL_MS's default when absent. */
  holdTtlMs?: number;
  /**
   * OWN_KEY_PLATFORM_FEE (exact decimal dollars; absent: 0): an own-key answer's hold. A zero hold is
   * made whatever the balance, and still meets the chatbot's daily spend limit (docs/adr/0043-own-provider-keys.md).
   */
  ownKeyFee?: string;
};

export function creditHolds(deps: CreditHoldsDeps): CreditHolds {
  const batches = groupCommit((holds: ParsedHold[]) => holdBatch(deps, holds), { max: HOLD_BATCH_MAX });
  return {
    async reserve(input) {
      const hold = { ...parseHold(input), ownKeyFee: input.ownKey ? (deps.ownKeyFee ?? '0') : null };
      let outcome = await batches.add(hold);
      if (outcome.o_outcome === 'no-account') {
        await openAccount(deps, hold.ownerId);
        outcome = await batches.add(hold);
      }
      return heldOrRefusal(hold, outcome);
    },
  };
}

/** One statement for the whole batch; its outcomes in the batch's order. */
async function holdBatch(deps: CreditHoldsDeps, holds: ParsedHold[]): Promise<HoldOutcome[]> {
  const { rows } = await deps.pool.query<HoldRow>({
    // Named, so each connection parses and plans it once (ADR 0078).
    name: 'hold-credit',
    text: 'SELECT * FROM hold_credit($1::jsonb, $2::bigint)',
    values: [
      // The function reads the owner as "userId", its columns' name.
      JSON.stringify(holds.map(({ ownerId, ...hold }) => ({ ...hold, userId: ownerId }))),
      deps.holdTtlMs ?? CREDIT_HOLD_TTL_MS,
    ],
  });
  if (rows.length !== holds.length) throw new Error(`hold_credit answered ${rows.length} outcomes for ${holds.length} holds`);
  // The driver reads NUMERIC as its exact decimal text.
  const decimal = (v: string | null) => (v === null ? null : new Prisma.Decimal(v));
  return rows.map((r) => ({
    o_request_id: r.o_request_id,
    o_outcome: r.o_outcome,
    o_amount: decimal(r.o_amount),
    o_input_price: decimal(r.o_input_price),
    o_output_price: decimal(r.o_output_price),
  }));
}

function heldOrRefusal(hold: ParsedHold, outcome: HoldOutcome): HeldCredit {
  switch (outcome.o_outcome) {
    case 'held':
    case 'existing':
      return { amount: outcome.o_amount!, inputPricePerMillion: outcome.o_input_price!, outputPricePerMillion: outcome.o_output_price! };
    case 'unpriced':
    case 'no-account': // opened just before: only a concurrent account deletion gets here
      throw failedPrecondition(`unknown model "${hold.model}": it has no price in ModelPrice`);
    case 'answered':
      throw failedPrecondition('This request has already been answered.');
    case 'conflict':
      throw failedPrecondition('request_id is already used by another hold.');
    case 'spend-limit':
      throw new ConnectError(SPEND_LIMIT_REACHED, Code.ResourceExhausted, { [SPEND_LIMIT_REACHED_HEADER]: 'true' });
    case 'no-credit':
      throw new ConnectError(NOT_ENOUGH_CREDIT, Code.ResourceExhausted, { [USER_MESSAGE_HEADER]: 'true' });
  }
}

export function parseHold(input: ReserveCreditInput) {
  const limit = (input.dailySpendLimit ?? '').trim();
  if (limit && (!DECIMAL.test(limit) || new Prisma.Decimal(limit).gt(MAX_SPEND_LIMIT)))
    throw invalid(`daily_spend_limit must be an amount of dollars from 0 to ${MAX_SPEND_LIMIT.toFixed()}, got "${limit.slice(0, 40)}".`);
  const chatbotId = (input.chatbotId ?? '').trim();
  if (limit && !chatbotId) throw invalid('chatbot_id is required with a daily_spend_limit.');
  return {
    requestId: requiredText(input.requestId, 'request_id', 200),
    ownerId: parseOwnerId(input.ownerId),
    model: requiredText(input.model, 'model', 200),
    maxPromptTokens: tokenCount(input.maxPromptTokens, 'max_prompt_tokens'),
    maxCompletionTokens: tokenCount(input.maxCompletionTokens, 'max_completion_tokens'),
    chatbotId: chatbotId ? requiredText(chatbotId, 'chatbot_id', 100) : null,
    dailySpendLimit: limit || null,
  };
}
