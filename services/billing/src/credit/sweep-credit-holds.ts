// Releasing the holds whose answer never reported back (the chat service stopped mid-answer), so
// the credit they held becomes available again. Runs every CREDIT_HOLD_SWEEP_MS in each billing
// instance (service.ts).
import type { PrismaClient } from '../generated/prisma/client.ts';

export const CREDIT_HOLD_SWEEP_MS = 30_000;

/**
 * One statement: deletes every expired hold and lowers each owner's reservedCredit by the sum of
 * theirs. Holds another statement is settling or releasing right now are skipped (SKIP LOCKED), as
 * are those a concurrent sweep took, so two billing instances never wait on each other; what is
 * skipped is either gone already or taken by the next sweep. Returns how many holds were released.
 */
export async function sweepCreditHolds(deps: { prisma: PrismaClient }): Promise<number> {
  const [{ released }] = await deps.prisma.$queryRaw<{ released: number }[]>`
    WITH expired AS (
      DELETE FROM "CreditReservation" WHERE "requestId" IN (
        SELECT "requestId" FROM "CreditReservation" WHERE "expiresAt" <= now() FOR UPDATE SKIP LOCKED
      )
      RETURNING "userId", "amount"
    ), per_owner AS (
      SELECT "userId", sum("amount") AS amount FROM expired GROUP BY "userId"
    ), lowered AS (
      UPDATE "Account" AS a SET "reservedCredit" = a."reservedCredit" - o.amount, "updatedAt" = now()
        FROM per_owner AS o WHERE a."userId" = o."userId"
    )
    SELECT count(*)::int AS released FROM expired`;
  return released;
}
