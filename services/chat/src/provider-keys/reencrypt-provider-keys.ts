// The last step of rotating PROVIDER_KEY_ENCRYPTION_KEY (docs/operations.md): every stored key that
// is not yet under the current operator key is opened (under the previous one) and sealed again
// under the current one. A row changed meanwhile (set again, removed) is left as it now is; running
// it twice changes nothing more. The decrypted keys are unchanged, so no replica's cache is touched.
import type { PrismaClient } from '../generated/prisma/client.ts';
import { openProviderKey, opensUnder, sealProviderKey, type ProviderKeyCiphers } from './provider-keys.ts';

/** How many keys were sealed again, and how many were already under the current key. */
export async function reencryptProviderKeys(
  db: PrismaClient,
  ciphers: ProviderKeyCiphers,
): Promise<{ reencrypted: number; current: number }> {
  let reencrypted = 0;
  let current = 0;
  const rows = await db.providerKey.findMany({ orderBy: [{ ownerId: 'asc' }, { provider: 'asc' }] });
  for (const row of rows) {
    if (opensUnder(ciphers.current, row)) {
      current++;
      continue;
    }
    // Throws when neither key opens it: the operator is told before the previous key is dropped.
    const key = openProviderKey(ciphers, row);
    const { count } = await db.providerKey.updateMany({
      where: { ownerId: row.ownerId, provider: row.provider, ciphertext: row.ciphertext },
      data: { ciphertext: sealProviderKey(ciphers, row.ownerId, row.provider, key) },
    });
    reencrypted += count;
  }
  return { reencrypted, current };
}
