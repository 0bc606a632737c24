// A workspace's own provider keys (docs/adr/0043-own-provider-keys.md): one per owner and provider,
// stored encrypted (AES-256-GCM under PROVIDER_KEY_ENCRYPTION_KEY, the owner and provider bound in
// as associated data), checked with the provider before it is stored, never read back: the owner
// sees the provider, its last four characters and when it was saved. Setting or removing one is
// announced to every chat replica (provider-key-changes.ts), whose cache of the decrypted keys
// (own-key-routers.ts) forgets that owner at once.
import { PROVIDERS, type Provider } from '@parley/common/models/catalogue.ts';
import { failedPrecondition, invalid } from '@parley/common/rpc-errors.ts';
import { open, seal } from '@parley/common/sealed-secret.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { ProviderEndpoints } from '../models/providers.ts';
import type { KeyCheck } from './provider-key-check.ts';

/** What the owner is shown of a stored key. */
export interface ProviderKeyView {
  provider: Provider;
  lastFour: string;
  createdAt: Date;
}

/** The operator's key that seals new keys, and the previous one, still accepted for reading during a rotation. */
export interface ProviderKeyCiphers {
  current: Buffer;
  previous?: Buffer;
}

export interface ProviderKeyDeps {
  db: PrismaClient;
  ciphers: ProviderKeyCiphers;
  /** The operator's endpoints: a key is checked at its provider's base URL, and only an offered provider takes one. */
  endpoints: ProviderEndpoints;
  check: KeyCheck;
  /** Tells every chat replica the owner's keys changed. */
  announce(ownerId: string): Promise<void>;
}

/** Longest key accepted: the providers' are about 40–200 characters. */
export const MAX_KEY_LENGTH = 500;
const KEY_SHAPE = /^[\x21-\x7e]{8,}$/;

const associatedData = (ownerId: string, provider: string) => `${ownerId}:${provider}`;

export function parseProvider(raw: string): Provider {
  if (!(PROVIDERS as readonly string[]).includes(raw)) throw invalid(`provider must be one of ${PROVIDERS.join(', ')}.`);
  return raw as Provider;
}

/** The key in plain text, from its row: under the current operator key, else the previous one. */
export function openProviderKey(ciphers: ProviderKeyCiphers, row: { ownerId: string; provider: string; ciphertext: string }): string {
  const aad = associatedData(row.ownerId, row.provider);
  try {
    return open(ciphers.current, row.ciphertext, aad);
  } catch (err) {
    if (!ciphers.previous) throw err;
    return open(ciphers.previous, row.ciphertext, aad);
  }
}

/** True when the row was sealed under this operator key. */
export function opensUnder(operatorKey: Buffer, row: { ownerId: string; provider: string; ciphertext: string }): boolean {
  try {
    open(operatorKey, row.ciphertext, associatedData(row.ownerId, row.provider));
    return true;
  } catch {
    return false;
  }
}

export const sealProviderKey = (ciphers: ProviderKeyCiphers, ownerId: string, provider: string, key: string) =>
  seal(ciphers.current, key, associatedData(ownerId, provider));

export async function listProviderKeys(deps: Pick<ProviderKeyDeps, 'db'>, ownerId: string): Promise<ProviderKeyView[]> {
  const rows = await deps.db.providerKey.findMany({ where: { ownerId }, orderBy: { provider: 'asc' } });
  return rows.map((r) => ({ provider: r.provider as Provider, lastFour: r.lastFour, createdAt: r.createdAt }));
}

/** Checks the key with its provider, then stores it in place of the owner's previous one. */
export async function setProviderKey(
  deps: ProviderKeyDeps,
  input: { ownerId: string; provider: string; key: string },
): Promise<ProviderKeyView> {
  const provider = parseProvider(input.provider);
  const key = input.key.trim();
  if (key.length > MAX_KEY_LENGTH) throw invalid(`The key must be at most ${MAX_KEY_LENGTH} characters.`);
  if (!KEY_SHAPE.test(key)) throw invalid('The key must be at least 8 characters, without spaces.');
  const operator = deps.endpoints[provider];
  if (!operator) throw failedPrecondition(`This deployment does not offer ${provider}'s models.`);
  await deps.check(provider, { apiKey: key, baseURL: operator.baseURL });
  const row = {
    ciphertext: sealProviderKey(deps.ciphers, input.ownerId, provider, key),
    lastFour: key.slice(-4),
    createdAt: new Date(),
  };
  await deps.db.providerKey.upsert({
    where: { ownerId_provider: { ownerId: input.ownerId, provider } },
    create: { ownerId: input.ownerId, provider, ...row },
    update: row,
  });
  await deps.announce(input.ownerId);
  return { provider, lastFour: row.lastFour, createdAt: row.createdAt };
}

/** Removes the owner's key of the provider (none: nothing happens); its chatbots answer on the operator's key and credit at once. */
export async function removeProviderKey(deps: ProviderKeyDeps, input: { ownerId: string; provider: string }): Promise<boolean> {
  const provider = parseProvider(input.provider);
  const { count } = await deps.db.providerKey.deleteMany({ where: { ownerId: input.ownerId, provider } });
  if (count) await deps.announce(input.ownerId);
  return count > 0;
}

/** The owner's keys in plain text, by provider (for the owner's model router only). */
export async function ownKeysOf(
  deps: Pick<ProviderKeyDeps, 'db' | 'ciphers'>,
  ownerId: string,
): Promise<Partial<Record<Provider, string>>> {
  const rows = await deps.db.providerKey.findMany({ where: { ownerId } });
  const keys: Partial<Record<Provider, string>> = {};
  for (const row of rows) keys[row.provider as Provider] = openProviderKey(deps.ciphers, row);
  return keys;
}
