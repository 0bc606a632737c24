// Granting credit: the ledger entry and the balance it explains, in one statement, at most once per
// reference. Every grant goes through here (the signup credit, a top-up, a subscription's credit);
// the usage debit is the one other change of a balance, with its own ledger entry, in
// usage/record-usage.ts's statement.
import type { Prisma } from '../generated/prisma/client.ts';

export interface CreditGrant {
  ownerId: string;
  /** Exact decimal string of dollars. */
  amount: string;
  /** Why the balance changed, e.g. `signup_credit` (CreditLedgerEntry.reason). */
  reason: string;
  /** The grant's idempotency key: a reference already in the ledger grants nothing. */
  reference: string;
}

/** Returns whether this call granted it. The account must exist (a grant to a missing one changes nothing). */
export async function grantCredit(tx: Prisma.TransactionClient, grant: CreditGrant): Promise<boolean> {
  const granted = await tx.$executeRaw`
    WITH entry AS (
      INSERT INTO "CreditLedgerEntry" ("id", "userId", "amount", "reason", "reference")
      VALUES (gen_random_uuid(), ${grant.ownerId}, ${grant.amount}::numeric, ${grant.reason}, ${grant.reference})
      ON CONFLICT ("reference") DO NOTHING
      RETURNING "userId", "amount"
    )
    UPDATE "Account" AS a SET "creditBalance" = a."creditBalance" + e."amount", "lastCreditRefill" = now(), "updatedAt" = now()
      FROM entry AS e WHERE a."userId" = e."userId"`;
  return granted > 0;
}
