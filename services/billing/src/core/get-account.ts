// Reading an owner's account. Auth's UserRegistered event may not have been applied yet (or may
// have been lost), so a missing account is opened on the spot instead of answering "not found";
// only a deleted owner's account is "not found".
import { notFound } from '@parley/common/rpc-errors.ts';
import type { Account } from '../generated/prisma/client.ts';
import { ACCOUNT_DELETED_MESSAGE, AccountDeletedError } from './deleted-account.ts';
import { openAccount, type OpenAccountDeps } from './open-account.ts';
import { parseOwnerId } from './owner-id.ts';

export async function getAccount(deps: OpenAccountDeps, rawOwnerId: string): Promise<Account> {
  const ownerId = parseOwnerId(rawOwnerId);
  const account = await deps.prisma.account.findUnique({ where: { ownerId } });
  if (account) return account;
  try {
    return await openAccount(deps, ownerId);
  } catch (err) {
    if (err instanceof AccountDeletedError) throw notFound(ACCOUNT_DELETED_MESSAGE);
    throw err;
  }
}
