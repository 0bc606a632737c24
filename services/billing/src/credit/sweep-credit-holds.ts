// Releasing the holds whose answer never reported back, so the credit they held becomes available
// again. A hold past its expiry is first the chat service's to reconcile: it lists the expired holds
// (listExpiredHolds), settles each whose exchange it stored by publishing its UsageRecorded, and
// releases the others (docs/adr/0037-answers-billed-when-a-process-dies.md). This sweep, every
// CREDIT_HOLD_SWEEP_MS in each billing instance (service.ts), releases what is still held
// HOLD_RECONCILE_GRACE_MS after its expiry: no chat service ran to reconcile it meanwhile.
import type { PrismaClient } from '../generated/prisma/client.ts';

export const CREDIT_HOLD_SWEEP_MS = 30_000;
/** How long past its expiry a hold waits for the chat service's reconciliation before the sweep releases it. */
export const HOLD_RECONCILE_GRACE_MS = 10 * 60_000;

/**
 * One statement (the sweep_credit_holds function): deletes every hold expired more than `graceMs`
 * ago and lowers each owner's reservedCredit by the sum of theirs, the owners' account rows locked
 * first, in order, as every writer of money does. Holds another statement is settling or releasing
 * right now are skipped (SKIP LOCKED), as are those a concurrent sweep took, so two billing
 * instances never wait on each other's holds; what is skipped is either gone already or taken by the
 * next sweep. Returns how many holds were released.
 */
export async function sweepCreditHolds(deps: { prisma: PrismaClient }, graceMs = HOLD_RECONCILE_GRACE_MS): Promise<number> {
  const [{ released }] = await deps.prisma.$queryRaw<
    { released: number }[]
  >`SELECT sweep_credit_holds(${BigInt(graceMs)}::bigint) AS released`;
  return released;
}

/** Request ids of holds past their expiry, oldest first: what the chat service reconciles. */
export async function listExpiredHolds(deps: { prisma: PrismaClient }, limit: number): Promise<string[]> {
  const take = limit > 0 ? Math.min(limit, 1000) : 500;
  const rows = await deps.prisma.$queryRaw<{ requestId: string }[]>`
    SELECT "requestId" FROM "CreditReservation" WHERE "expiresAt" <= now() ORDER BY "expiresAt", "requestId" LIMIT ${take}`;
  return rows.map((r) => r.requestId);
}
