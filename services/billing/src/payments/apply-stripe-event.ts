// Applying one Stripe event to plans and credit, once, whatever Stripe's order and redeliveries.
// - Once: the event id goes into ProcessedStripeEvent in the same transaction as its effect; a
//   redelivery (or a concurrent duplicate, which waits on that row) finds it and changes nothing.
//   Every grant is also a ledger entry with a unique reference, a second guard.
// - Any order: the plan is derived from the owner's Subscription rows, and a row keeps the greatest
//   of the statuses proposed to it (canceled first, since Stripe never reactivates a canceled
//   subscription; then the newest event; then, for one second's ties, a fixed ranking), so the
//   end state is the same for every order of delivery. See docs/adr/0011.
// Events of one owner are applied one at a time (their account row is locked first), so the plan
// computed at the end of each sees every earlier event's subscription changes. Events about an owner
// who deleted their account are recorded as processed and change nothing.
import { invalid } from '@parley/common/rpc-errors.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { AccountDeletedError } from '../core/deleted-account.ts';
import { openAccountInTransaction } from '../core/open-account.ts';
import { parseOwnerId } from '../core/owner-id.ts';
import type { PaymentsDeps } from './payments-deps.ts';
import { grantCredit } from '../core/grant-credit.ts';

export interface StripeEventInput {
  /** Stripe's event id, also in the payload. */
  eventId: string;
  /** Stripe's event type, also in the payload. */
  type: string;
  /** The event as Stripe sent it (the verified raw body). */
  payload: string;
}

/**
 * applied: its effect was written. already_applied: a redelivery, nothing changed. ignored: a type
 * billing does not act on, or nothing to apply (no owner, an unpaid top-up); recorded as processed.
 */
export type StripeEventOutcome = 'applied' | 'already_applied' | 'ignored';

export type ApplyStripeEventDeps = Pick<PaymentsDeps, 'prisma' | 'initialCredit' | 'logger'> & {
  config: Pick<PaymentsDeps['config'], 'PRO_PLAN_CREDIT'>;
  /** Told after the commit when the event changed the owner's plan (plan.changed for webhooks); never throws. */
  planChanged?: (change: PlanChange) => Promise<void>;
};

export interface PlanChange {
  ownerId: string;
  plan: 'free' | 'pro';
  previousPlan: 'free' | 'pro';
  /** The Stripe event that changed it: one plan.changed per event. */
  eventId: string;
}

/** Subscription statuses in which the owner is on the pro plan (past_due: Stripe is still retrying the payment). */
export const PRO_STATUSES = ['active', 'trialing', 'past_due'];

/** Ties within one second of Stripe's `created` go to the later status here (the less favourable one). */
const STATUS_RANK = ['active', 'trialing', 'paused', 'incomplete', 'past_due', 'unpaid', 'incomplete_expired', 'canceled'];

export const PRO_CREDIT_REASON = 'pro_plan_credit';
export const TOPUP_REASON = 'credit_topup';
/** The ledger's idempotency keys: one pro credit per subscription, one credit per paid top-up checkout. */
export const proCreditReference = (subscriptionId: string) => `pro_credit:${subscriptionId}`;
export const topupReference = (checkoutSessionId: string) => `topup:${checkoutSessionId}`;

/** Cents a top-up may credit at most: far above any real one, and within NUMERIC(20,10). */
const MAX_TOPUP_CENTS = 100_000_000_000;

export async function applyStripeEvent(deps: ApplyStripeEventDeps, input: StripeEventInput): Promise<StripeEventOutcome> {
  const event = parseStripeEvent(input);
  // Validated before any write: a malformed event fails the same way on every retry.
  const effect = effectOf(event);

  let planChange: PlanChange | undefined;
  const outcome = await deps.prisma.$transaction(
    async (tx): Promise<StripeEventOutcome> => {
      const { count } = await tx.processedStripeEvent.createMany({ data: [{ eventId: event.id, type: event.type }], skipDuplicates: true });
      if (count === 0) return 'already_applied';
      const log = { eventId: event.id, type: event.type };
      if (effect.kind === 'nothing') {
        deps.logger.info({ ...log, reason: effect.reason }, 'stripe event recorded, nothing to apply');
        return 'ignored';
      }

      const ownerId = await resolveOwner(tx, effect.owner);
      if (!ownerId) {
        deps.logger.warn({ ...log, owner: effect.owner }, 'stripe event recorded, but names no known owner: nothing applied');
        return 'ignored';
      }
      try {
        await openAccountInTransaction(tx, ownerId, deps.initialCredit);
      } catch (err) {
        if (!(err instanceof AccountDeletedError)) throw err;
        // Recorded as processed (this transaction commits), and nothing of the owner comes back.
        deps.logger.info({ ...log, ownerId }, 'stripe event recorded, but its owner has deleted their account: nothing applied');
        return 'ignored';
      }
      await tx.$queryRaw`SELECT 1 FROM "Account" WHERE "userId" = ${ownerId} FOR UPDATE`;

      switch (effect.kind) {
        case 'pro_subscription':
          await proposeStatus(tx, effect.subscriptionId, ownerId, 'active', event.created);
          if (new Prisma.Decimal(deps.config.PRO_PLAN_CREDIT).gt(0)) {
            await grantCredit(tx, {
              ownerId,
              amount: deps.config.PRO_PLAN_CREDIT,
              reason: PRO_CREDIT_REASON,
              reference: proCreditReference(effect.subscriptionId),
            });
          }
          planChange = await refreshPlan(tx, ownerId, event.id);
          await markCompleted(tx, effect.sessionId);
          break;
        case 'topup':
          if (effect.amount !== '0.00')
            await grantCredit(tx, { ownerId, amount: effect.amount, reason: TOPUP_REASON, reference: topupReference(effect.sessionId) });
          await markCompleted(tx, effect.sessionId);
          break;
        case 'subscription_status':
          await proposeStatus(tx, effect.subscriptionId, ownerId, effect.status, event.created);
          planChange = await refreshPlan(tx, ownerId, event.id);
          break;
      }
      deps.logger.info({ ...log, ownerId }, 'stripe event applied');
      return 'applied';
    },
    { timeout: 15_000 },
  );
  if (planChange && deps.planChanged) await deps.planChanged(planChange);
  return outcome;
}

type Json = Record<string, unknown>;

interface ParsedEvent {
  id: string;
  type: string;
  created: Date;
  object: Json | undefined;
}

interface OwnerHints {
  /** metadata.userId (the owner's id, under the key Stripe's objects have carried from the start), else client_reference_id. */
  ownerId?: string;
  customerId?: string;
  subscriptionId?: string;
}

type Effect =
  | { kind: 'pro_subscription'; sessionId: string; subscriptionId: string; owner: OwnerHints }
  | { kind: 'topup'; sessionId: string; amount: string; owner: OwnerHints }
  | { kind: 'subscription_status'; subscriptionId: string; status: string; owner: OwnerHints }
  | { kind: 'nothing'; reason: string };

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
/** A Stripe reference: an id, or the expanded object carrying it. */
const idOf = (v: unknown): string | undefined => text(isObject(v) ? v.id : v);

/** The event's envelope; InvalidArgument for anything Stripe would not have sent. */
export function parseStripeEvent(input: StripeEventInput): ParsedEvent {
  const id = input.eventId.trim();
  if (!id) throw invalid('event_id is required.');
  if (id.length > 255) throw invalid('event_id must be at most 255 characters.');
  let body: unknown;
  try {
    body = JSON.parse(input.payload);
  } catch {
    throw invalid('payload is not JSON.');
  }
  if (!isObject(body)) throw invalid('payload must be a Stripe event object.');
  if (body.id !== id) throw invalid('payload.id does not match event_id.');
  const type = text(body.type);
  if (!type) throw invalid('payload.type is required.');
  if (input.type && input.type !== type) throw invalid('payload.type does not match type.');
  if (typeof body.created !== 'number' || !Number.isSafeInteger(body.created) || body.created <= 0) {
    throw invalid('payload.created must be a Unix time in seconds.');
  }
  const object = isObject(body.data) && isObject(body.data.object) ? body.data.object : undefined;
  return { id, type, created: new Date(body.created * 1000), object };
}

function effectOf(event: ParsedEvent): Effect {
  switch (event.type) {
    // The second: a payment method that settles later (bank debits) completes unpaid, then sends it.
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return checkoutEffect(requiredObject(event));
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return subscriptionEffect(requiredObject(event), event.type === 'customer.subscription.deleted');
    default:
      return { kind: 'nothing', reason: 'not a type billing acts on' };
  }
}

function requiredObject(event: ParsedEvent): Json {
  if (!event.object) throw invalid(`payload.data.object is required for ${event.type}.`);
  return event.object;
}

function checkoutEffect(session: Json): Effect {
  const sessionId = idOf(session.id);
  if (!sessionId) throw invalid('the checkout session has no id.');
  const metadata = isObject(session.metadata) ? session.metadata : {};
  const owner: OwnerHints = { ownerId: text(metadata.userId) ?? text(session.client_reference_id), customerId: idOf(session.customer) };
  const subscriptionId = idOf(session.subscription);

  if (session.mode === 'subscription' || metadata.type === 'subscription' || subscriptionId) {
    if (!subscriptionId) return { kind: 'nothing', reason: 'a subscription checkout without a subscription id' };
    return { kind: 'pro_subscription', sessionId, subscriptionId, owner };
  }
  if (session.mode === 'payment' && metadata.type === 'credit_topup') {
    if (session.payment_status !== 'paid')
      return { kind: 'nothing', reason: `top-up not paid (payment_status ${String(session.payment_status)})` };
    // Credit is in US dollars: a charge in another currency cannot be credited one for one.
    if (session.currency !== undefined && session.currency !== null && session.currency !== 'usd') {
      throw invalid(`a top-up paid in ${String(session.currency)} cannot be credited in US dollars.`);
    }
    const cents = session.amount_total;
    if (typeof cents !== 'number' || !Number.isSafeInteger(cents) || cents < 0 || cents > MAX_TOPUP_CENTS) {
      throw invalid('the top-up has no valid amount_total (whole cents).');
    }
    return { kind: 'topup', sessionId, amount: dollarsOfCents(cents), owner };
  }
  return { kind: 'nothing', reason: 'a checkout of something billing does not sell' };
}

function subscriptionEffect(subscription: Json, deleted: boolean): Effect {
  const subscriptionId = idOf(subscription.id);
  if (!subscriptionId) throw invalid('the subscription has no id.');
  const status = deleted ? 'canceled' : text(subscription.status);
  if (!status || !/^[a-z_]{1,40}$/.test(status)) throw invalid('the subscription has no valid status.');
  const metadata = isObject(subscription.metadata) ? subscription.metadata : {};
  return {
    kind: 'subscription_status',
    subscriptionId,
    status,
    owner: { ownerId: text(metadata.userId), customerId: idOf(subscription.customer), subscriptionId },
  };
}

/** Whole cents as an exact decimal string of dollars (1234 → "12.34"). */
export const dollarsOfCents = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** The owner the event is about: the owner id its metadata carries (as `userId`), else the account of its Stripe customer, else its subscription's. */
async function resolveOwner(tx: Prisma.TransactionClient, owner: OwnerHints): Promise<string | undefined> {
  if (owner.ownerId) return parseOwnerId(owner.ownerId);
  if (owner.customerId) {
    const account = await tx.account.findUnique({ where: { stripeCustomerId: owner.customerId }, select: { ownerId: true } });
    if (account) return account.ownerId;
  }
  if (owner.subscriptionId) {
    const subscription = await tx.subscription.findUnique({ where: { id: owner.subscriptionId }, select: { ownerId: true } });
    if (subscription) return subscription.ownerId;
  }
  return undefined;
}

const rankOf = (column: string) =>
  Prisma.raw(`coalesce(array_position(ARRAY[${STATUS_RANK.map((s) => `'${s}'`).join(', ')}]::text[], ${column}), 0)`);

/**
 * Records what an event says a subscription's status is. The row keeps the greatest proposal by
 * (canceled, Stripe time, rank): a max, so any order of the same events gives the same row.
 */
async function proposeStatus(
  tx: Prisma.TransactionClient,
  subscriptionId: string,
  ownerId: string,
  status: string,
  at: Date,
): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO "Subscription" ("id", "userId", "status", "statusAt", "updatedAt")
    VALUES (${subscriptionId}, ${ownerId}, ${status}, ${at.toISOString()}::timestamptz, now())
    ON CONFLICT ("id") DO UPDATE SET "status" = EXCLUDED."status", "statusAt" = EXCLUDED."statusAt", "updatedAt" = now()
    WHERE (EXCLUDED."status" = 'canceled', EXCLUDED."statusAt", ${rankOf('EXCLUDED."status"')})
        > ("Subscription"."status" = 'canceled', "Subscription"."statusAt", ${rankOf('"Subscription"."status"')})`;
}

/** Pro while the owner has a subscription in a pro status; free otherwise (the credit stays). Returns the change, if any. */
async function refreshPlan(tx: Prisma.TransactionClient, ownerId: string, eventId: string): Promise<PlanChange | undefined> {
  const pro = await tx.subscription.count({ where: { ownerId, status: { in: PRO_STATUSES } } });
  // The account row is locked by this transaction: the plan read is the one replaced.
  const before = await tx.account.findUnique({ where: { ownerId }, select: { plan: true } });
  const plan = pro > 0 ? 'pro' : 'free';
  await tx.account.update({ where: { ownerId }, data: { plan } });
  return before && before.plan !== plan ? { ownerId, plan, previousPlan: before.plan, eventId } : undefined;
}

async function markCompleted(tx: Prisma.TransactionClient, sessionId: string): Promise<void> {
  await tx.checkoutSession.updateMany({ where: { id: sessionId, completedAt: null }, data: { completedAt: new Date() } });
}
