import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { CurrentPasswordDeps } from '../core/current-password.ts';
import type { Notices } from '../mail/notices.ts';
import type { TwoFactorKeys } from './two-factor-keys.ts';
import type { TwoFactorThrottle } from './two-factor-throttle.ts';

/** What the two-factor use cases run with. */
export interface TwoFactorDeps extends CurrentPasswordDeps {
  db: PrismaClient;
  twoFactorKeys: TwoFactorKeys;
  twoFactorThrottle: TwoFactorThrottle;
  twoFactorChallengeTtlSeconds: number;
  notices: Notices;
  logger: Logger;
  publicUrl: string;
}

export const TWO_FACTOR_ALREADY_ON = 'Two-factor sign-in is already on.';
export const TWO_FACTOR_NOT_ON = 'Two-factor sign-in is not on.';
