// The "Forgot password?" form. The answer is the same empty one whether or not an account has the
// email, and so is the work: validate, count, enqueue. The account is looked up later, by the job
// (issue-reset.ts), so neither the answer nor its timing tells who has an account.
import { invalid } from '@parley/common/rpc-errors.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';
import { isValidEmail, MAX_EMAIL_LENGTH, normalizeEmail } from '../core/email.ts';
import type { PasswordResetThrottle } from './password-reset-throttle.ts';
import type { PasswordResetRequest } from './password-reset-requested.publisher.ts';

export interface RequestPasswordResetDeps {
  passwordResetThrottle: PasswordResetThrottle;
  publishPasswordResetRequested: (request: PasswordResetRequest) => Promise<void>;
}

export async function requestPasswordReset(deps: RequestPasswordResetDeps, req: { email: string; clientIp: string }): Promise<void> {
  const email = normalizeEmail(req.email);
  if (!email) throw invalid('Please enter your email');
  if (hasControlCharacters(email)) throw invalid('Email must not contain control characters');
  if (email.length > MAX_EMAIL_LENGTH) throw invalid(`Email must be at most ${MAX_EMAIL_LENGTH} characters`);
  // No account can have a malformed address (registration refuses them), so saying so reveals nothing.
  if (!isValidEmail(email)) throw invalid('Please enter a valid email address');
  await deps.passwordResetThrottle.acquire(email, req.clientIp);
  await deps.publishPasswordResetRequested({ email, clientIp: req.clientIp, requestedAt: new Date() });
}
