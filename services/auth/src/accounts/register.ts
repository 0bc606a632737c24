import { alreadyExists } from '@parley/common/rpc-errors.ts';
import type { Logger } from '@parley/common/logger.ts';
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { hashPassword } from '../passwords/password-hash.ts';
import { startSession, type StartedSession } from '../sessions/start-session.ts';
import { accountUserSelect, type AccountUser } from './account-user.ts';
import { parseRegistration, type RegistrationRequest } from './registration-input.ts';

export interface RegisterDeps {
  db: PrismaClient;
  sessionTtlSeconds: number;
  /** Announces the new account; called after the commit. */
  publishUserRegistered: (user: AccountUser) => Promise<void>;
  logger: Logger;
}

export const EMAIL_TAKEN = 'An account with this email already exists';

/** Creates an account and its first session in one transaction, then announces the account. */
export async function register(
  deps: RegisterDeps,
  req: RegistrationRequest & { clientIp: string },
): Promise<StartedSession & { user: AccountUser }> {
  const input = parseRegistration(req);
  const passwordHash = await hashPassword(input.password);
  let result: StartedSession & { user: AccountUser };
  try {
    result = await deps.db.$transaction(async (tx) => {
      const user = await tx.user.create({
        data: { email: input.email, name: input.name, passwordHash },
        select: accountUserSelect,
      });
      const session = await startSession(tx, { userId: user.id, clientIp: req.clientIp, ttlSeconds: deps.sessionTtlSeconds });
      return { ...session, user };
    });
  } catch (err) {
    // The unique index decides, so two concurrent registrations of one address cannot both win.
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw alreadyExists(EMAIL_TAKEN);
    throw err;
  }

  // Billing also opens accounts lazily, so a lost event costs nothing but a log line.
  try {
    await deps.publishUserRegistered(result.user);
  } catch (err) {
    deps.logger.error({ err, userId: result.user.id }, 'could not publish UserRegistered');
  }
  deps.logger.info({ userId: result.user.id }, 'account registered');
  return result;
}
