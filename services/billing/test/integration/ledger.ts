// The money invariants, asserted after tests that change balances concurrently or replay events:
// every account's balance is explained by its ledger, and its reserved credit by its open holds.
import { expect } from 'vitest';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';

interface Check {
  ownerId: string;
  stored: string;
  expected: string;
  matches: boolean;
}

/** For every account: creditBalance = the sum of its ledger entries. Returns how many accounts were checked. */
export async function expectLedgerInvariant(prisma: PrismaClient): Promise<number> {
  const rows = await prisma.$queryRaw<Check[]>`
    SELECT a."userId", a."creditBalance"::text AS stored, coalesce(l.sum, 0)::text AS expected,
           a."creditBalance" = coalesce(l.sum, 0) AS matches
      FROM "Account" AS a
      LEFT JOIN (SELECT "userId", sum("amount") AS sum FROM "CreditLedgerEntry" GROUP BY "userId") AS l USING ("userId")`;
  expect(rows.filter((r) => !r.matches)).toEqual([]);
  return rows.length;
}

/** For every account: reservedCredit = the sum of its open credit holds. Returns how many accounts were checked. */
export async function expectHoldsInvariant(prisma: PrismaClient): Promise<number> {
  const rows = await prisma.$queryRaw<Check[]>`
    SELECT a."userId", a."reservedCredit"::text AS stored, coalesce(h.sum, 0)::text AS expected,
           a."reservedCredit" = coalesce(h.sum, 0) AS matches
      FROM "Account" AS a
      LEFT JOIN (SELECT "userId", sum("amount") AS sum FROM "CreditReservation" GROUP BY "userId") AS h USING ("userId")`;
  expect(rows.filter((r) => !r.matches)).toEqual([]);
  return rows.length;
}
