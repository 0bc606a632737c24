// Reading an owner's account. Auth's UserRegistered event may not have been applied yet (or may
// have been lost), so a missing account is opened on the spot instead of answering "not found".
import type { Account } from '../generated/prisma/client.ts';
import { openAccount, type OpenAccountDeps } from './open-account.ts';
import { parseUserId } from './user-id.ts';

export async function getAccount(deps: OpenAccountDeps, rawUserId: string): Promise<Account> {
  const userId = parseUserId(rawUserId);
  return (await deps.prisma.account.findUnique({ where: { userId } })) ?? openAccount(deps, userId);
}
