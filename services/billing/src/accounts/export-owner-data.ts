// Everything billing holds about an owner for their data export, but their usage records (a page at a
// time: list-usage-records.ts): the account, the Stripe customer id, the subscriptions as the Stripe
// events told them, and the credit ledger, oldest first, but for its usage debits (one per answer:
// the usage records say the same, and would make this one message unbounded).
import type { Account, CreditLedgerEntry, Subscription } from '../generated/prisma/client.ts';
import { getAccount } from '../core/get-account.ts';
import type { OpenAccountDeps } from '../core/open-account.ts';
import { USAGE_DEBIT_REASON } from '../usage/record-usage.ts';
import { parseOwnerId } from '../core/owner-id.ts';

export interface OwnerData {
  account: Account;
  subscriptions: Subscription[];
  creditLedger: CreditLedgerEntry[];
}

export async function exportOwnerData(deps: OpenAccountDeps, rawOwnerId: string): Promise<OwnerData> {
  const ownerId = parseOwnerId(rawOwnerId);
  // NOT_FOUND for a deleted owner; an owner whose signup was not applied yet gets their account opened.
  const account = await getAccount(deps, ownerId);
  const [subscriptions, creditLedger] = await Promise.all([
    deps.prisma.subscription.findMany({ where: { ownerId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    deps.prisma.creditLedgerEntry.findMany({
      where: { ownerId, reason: { not: USAGE_DEBIT_REASON } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    }),
  ]);
  return { account, subscriptions, creditLedger };
}
