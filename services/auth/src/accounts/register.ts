import { alreadyExists, Code, ConnectError } from '@parley/common/rpc-errors.ts';
import type { Logger } from '@parley/common/logger.ts';
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { hashPassword } from '../core/password-hash.ts';
import type { LoginThrottle } from '../core/login-throttle.ts';
import { findByCredentials, type LoginDeps } from '../sessions/login.ts';
import { startSession, type StartedSession } from '../sessions/start-session.ts';
import { accountUserSelect, type AccountUser } from '../core/account-user.ts';
import { parseRegistration, type RegistrationInput, type RegistrationRequest } from '../core/registration-input.ts';
import type { RegistrationThrottle } from './registration-throttle.ts';
import { createPersonalWorkspace } from '../core/workspace.ts';

export interface RegisterDeps {
  db: PrismaClient;
  sessionTtlSeconds: number;
  /** Announces the new account; called after the commit. */
  publishUserRegistered: (user: AccountUser) => Promise<void>;
  logger: Logger;
  registrationThrottle: RegistrationThrottle;
  throttle: LoginThrottle;
  verifyPassword?: LoginDeps['verifyPassword'];
}

export const EMAIL_TAKEN = 'An account with this email already exists';

/**
 * Creates an account, its personal workspace (whose id is the account's) and its first session in one
 * transaction, then announces the account.
 *
 * Registering again with the email and password of an existing account signs into it instead: the
 * gateway answers a sign-up only once billing has shown the new account, so a sign-up that failed
 * after auth committed (billing down) must succeed when the user retries the same form.
 */
export async function register(
  deps: RegisterDeps,
  req: RegistrationRequest & { clientIp: string },
): Promise<StartedSession & { user: AccountUser }> {
  const input = parseRegistration(req);
  await deps.registrationThrottle.acquire(req.clientIp);
  const retried = await signInRetry(deps, input, req.clientIp);
  if (retried) return retried;

  const passwordHash = await hashPassword(input.password);
  let result: StartedSession & { user: AccountUser };
  try {
    result = await deps.db.$transaction(async (tx) => {
      const user = await tx.user.create({
        data: { email: input.email, name: input.name, passwordHash },
        select: accountUserSelect,
      });
      await createPersonalWorkspace(tx, user);
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

/** A retried sign-up: a session for the existing account if the password is its own, else AlreadyExists. */
async function signInRetry(
  deps: RegisterDeps,
  input: RegistrationInput,
  clientIp: string,
): Promise<(StartedSession & { user: AccountUser }) | undefined> {
  if (!(await deps.db.user.findUnique({ where: { email: input.email }, select: { id: true } }))) return undefined;
  // Counted like a login, so sign-up cannot be used to guess passwords past the login throttle; a
  // throttled retry is told only that the address is taken.
  try {
    await deps.throttle.acquire(input.email, clientIp);
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.ResourceExhausted) throw alreadyExists(EMAIL_TAKEN);
    throw err;
  }
  const user = await findByCredentials(deps, input.email, input.password);
  if (!user) throw alreadyExists(EMAIL_TAKEN);
  await deps.throttle.succeeded(input.email, clientIp);
  const session = await startSession(deps.db, { userId: user.id, clientIp, ttlSeconds: deps.sessionTtlSeconds });
  deps.logger.info({ userId: user.id }, 'sign-up retried: signed into the existing account');
  return { ...session, user };
}
