// Releasing the holds whose answer never reported back (the chat service stopped mid-answer), so
// the credit they held becomes available again. Runs every CREDIT_HOLD_SWEEP_MS in each billing
// instance (service.ts).
import type { PrismaClient } from '../generated/prisma/client.ts';

export const CREDIT_HOLD_SWEEP_MS = 30_000;

/**
 * One statement (the sweep_credit_holds function): deletes every expired hold and lowers each
 * owner's reservedCredit by the sum of theirs, the owners' account rows locked first, in order, as
 * every writer of money does. Holds another statement is settling or releasing right now are
 * skipped (SKIP LOCKED), as are those a concurrent sweep took, so two billing instances never wait
 * on each other's holds; what is skipped is either gone already or taken by the next sweep.
 * Returns how many holds were released.
 */
export async function sweepCreditHolds(deps: { prisma: PrismaClient }): Promise<number> {
  const [{ released }] = await deps.prisma.$queryRaw<{ released: number }[]>`SELECT sweep_credit_holds() AS released`;
  return released;
}
