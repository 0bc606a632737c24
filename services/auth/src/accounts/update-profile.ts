import type { PrismaClient } from '../generated/prisma/client.ts';
import { notFound } from '@parley/common/rpc-errors.ts';
import { accountUserSelect, type AccountUser } from '../core/account-user.ts';
import { ACCOUNT_NOT_FOUND, parseName, parseUserId } from '../core/profile-input.ts';

/** Sets the user's display name (trimmed; empty is allowed: the product then greets "User"). */
export async function updateProfile(db: PrismaClient, req: { userId: string; name: string }): Promise<AccountUser> {
  const userId = parseUserId(req.userId);
  const name = parseName(req.name);
  const [user] = await db.user.updateManyAndReturn({ where: { id: userId }, data: { name }, select: accountUserSelect });
  if (!user) throw notFound(ACCOUNT_NOT_FOUND);
  return user;
}
