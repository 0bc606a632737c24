import type { User } from '../generated/prisma/client.ts';

/** What the service tells callers about an account: never its password hash. */
export type AccountUser = Pick<User, 'id' | 'email' | 'name' | 'createdAt'>;

export const accountUserSelect = { id: true, email: true, name: true, createdAt: true } as const;
