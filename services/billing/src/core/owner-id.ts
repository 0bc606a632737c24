import { invalid } from '@parley/common/rpc-errors.ts';

/**
 * The owner's id (the workspace's: a person's personal workspace has their user id), as billing
 * accepts it at every boundary (RPC, job payload); `field` is the name the payload gives it.
 */
export function parseOwnerId(raw: string, field = 'owner_id'): string {
  const ownerId = raw.trim();
  if (!ownerId) throw invalid(`${field} is required.`);
  if (ownerId.length > 100) throw invalid(`${field} must be at most 100 characters.`);
  return ownerId;
}
