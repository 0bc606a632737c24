// Deleted owners stay deleted. The AccountDeleted job leaves a tombstone (DeletedAccount); every path
// that could open an account again (a lazy GetAccount, a redelivered UserRegistered, late usage, a
// late Stripe event, a credit hold) meets it in openAccountInTransaction, under the same per-owner
// lock the deletion holds, so a late arrival racing the deletion cannot slip in between.
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import type { Prisma } from '../generated/prisma/client.ts';

export const ACCOUNT_DELETED_MESSAGE = 'This account has been deleted.';

/** Thrown when an account would be opened for an owner who deleted theirs (FAILED_PRECONDITION). */
export class AccountDeletedError extends ConnectError {
  readonly ownerId: string;
  constructor(ownerId: string) {
    super(ACCOUNT_DELETED_MESSAGE, Code.FailedPrecondition);
    this.ownerId = ownerId;
  }

  // ConnectError's own instanceof accepts any ConnectError (for errors from another copy of the
  // library); this one must match only itself.
  static [Symbol.hasInstance](value: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/**
 * Serialises opening and deleting one owner's account, until the transaction ends. An advisory lock,
 * because the account row to lock may not exist yet; namespaced, because advisory locks are per database.
 */
export async function lockOwner(tx: Prisma.TransactionClient, ownerId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`billing.owner:${ownerId}`}, 0))`;
}

export async function isDeleted(tx: Prisma.TransactionClient, ownerId: string): Promise<boolean> {
  return (await tx.deletedAccount.count({ where: { ownerId } })) > 0;
}
