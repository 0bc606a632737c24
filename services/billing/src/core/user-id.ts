import { invalid } from '@parley/common/rpc-errors.ts';

/** Auth's user id, as billing accepts it at every boundary (RPC, job payload). */
export function parseUserId(raw: string): string {
  const userId = raw.trim();
  if (!userId) throw invalid('user_id is required.');
  if (userId.length > 100) throw invalid('user_id must be at most 100 characters.');
  return userId;
}
