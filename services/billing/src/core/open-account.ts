// Opening an owner's billing account: the free plan with the initial credit, and the ledger entry
// that explains that credit. Runs once per user however many times it is called, including
// concurrently (the UserRegistered event, its redeliveries and GetAccount may all race). Never for
// an owner who deleted their account: AccountDeletedError (deleted-account.ts).
import { Prisma, type Account, type PrismaClient } from '../generated/prisma/client.ts';
import { grantCredit } from './grant-credit.ts';
import { AccountDeletedError, isDeleted, lockOwner } from './deleted-account.ts';
import { parseOwnerId } from './owner-id.ts';

export interface OpenAccountDeps {
  prisma: PrismaClient;
  /** Exact decimal string of dollars (INITIAL_CREDIT). */
  initialCredit: string;
}

export const SIGNUP_CREDIT_REASON = 'signup_credit';

/** The ledger's idempotency key for the signup credit: one per user, ever. */
export const signupCreditReference = (ownerId: string) => `signup:${ownerId}`;

export async function openAccount(deps: OpenAccountDeps, rawOwnerId: string): Promise<Account> {
  const ownerId = parseOwnerId(rawOwnerId);
  return deps.prisma.$transaction(async (tx) => {
    await openAccountInTransaction(tx, ownerId, deps.initialCredit);
    return tx.account.findUniqueOrThrow({ where: { ownerId } });
  });
}

/**
 * The same, as one step of a caller's transaction (recording usage opens a missing account before
 * debiting it). Returns whether this call created the account. Holds the owner's lock until the
 * transaction ends, so an account deletion cannot run in between; throws AccountDeletedError for a
 * deleted owner.
 */
export async function openAccountInTransaction(tx: Prisma.TransactionClient, ownerId: string, initialCredit: string): Promise<boolean> {
  await lockOwner(tx, ownerId);
  if (await isDeleted(tx, ownerId)) throw new AccountDeletedError(ownerId);
  // INSERT ... ON CONFLICT DO NOTHING: a concurrent opener waits for the first one's row and then
  // inserts nothing (count 0) instead of failing, so only the call that created the account
  // grants the signup credit (its balance starts at 0 and changes only with the ledger).
  const { count } = await tx.account.createMany({ data: [{ ownerId, creditBalance: 0 }], skipDuplicates: true });
  if (count === 1) {
    await grantCredit(tx, { ownerId, amount: initialCredit, reason: SIGNUP_CREDIT_REASON, reference: signupCreditReference(ownerId) });
  }
  return count === 1;
}

/** Why a workspace's account gave back the starting credit a lazy read opened it with. */
export const WORKSPACE_CREDIT_REVERSAL_REASON = 'workspace_signup_credit_reversed';
export const workspaceCreditReversalReference = (workspaceId: string) => `workspace-signup-reversal:${workspaceId}`;

/**
 * Opening the account of a workspace created besides a personal one (WorkspaceCreated): the free
 * plan without the starting credit, which comes once per person, with the personal workspace
 * (docs/adr/0030-workspaces.md). Idempotent like openAccount, and never for a deleted owner.
 *
 * A read that came before the event (GetAccount, usage, a credit hold) opened the account as a
 * person's, with the starting credit: that credit is taken back here, as much of it as is not spent
 * or held, once (the ledger's reference).
 */
export async function openWorkspaceAccount(deps: Pick<OpenAccountDeps, 'prisma'>, rawWorkspaceId: string): Promise<Account> {
  const ownerId = parseOwnerId(rawWorkspaceId);
  return deps.prisma.$transaction(async (tx) => {
    await lockOwner(tx, ownerId);
    if (await isDeleted(tx, ownerId)) throw new AccountDeletedError(ownerId);
    const { count } = await tx.account.createMany({ data: [{ ownerId, creditBalance: 0 }], skipDuplicates: true });
    if (count === 0) await takeBackStartingCredit(tx, ownerId);
    return tx.account.findUniqueOrThrow({ where: { ownerId } });
  });
}

async function takeBackStartingCredit(tx: Prisma.TransactionClient, ownerId: string): Promise<void> {
  const granted = await tx.creditLedgerEntry.findUnique({ where: { reference: signupCreditReference(ownerId) }, select: { amount: true } });
  if (!granted) return;
  const account = await tx.account.findUniqueOrThrow({ where: { ownerId }, select: { creditBalance: true, reservedCredit: true } });
  const available = account.creditBalance.minus(account.reservedCredit);
  const back = Prisma.Decimal.min(granted.amount, available);
  if (back.lte(0)) return;
  await grantCredit(tx, {
    ownerId,
    amount: back.negated().toFixed(),
    reason: WORKSPACE_CREDIT_REVERSAL_REASON,
    reference: workspaceCreditReversalReference(ownerId),
  });
}
