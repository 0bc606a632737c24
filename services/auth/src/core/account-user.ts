import type { User } from '../generated/prisma/client.ts';

/** What the service tells callers about an account: never its password hash nor its two-factor secret. */
export type AccountUser = Pick<User, 'id' | 'email' | 'name' | 'createdAt' | 'twoFactorEnabledAt'>;

export const accountUserSelect = { id: true, email: true, name: true, createdAt: true, twoFactorEnabledAt: true } as const;
