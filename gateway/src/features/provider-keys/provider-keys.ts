// A workspace's own provider keys as the dashboard sees them (docs/adr/0043-own-provider-keys.md):
// thin calls to chat's ListProviderKeys / SetProviderKey / RemoveProviderKey shared by REST and
// GraphQL. Chat owns every rule and message (the provider's check, the key's shape); the gateway
// checks apikeys:manage (permissions.ts), audits a change with the provider and last four characters
// only, and never answers, logs or keeps the key.
import type { ProviderKey } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { invalid } from '@parley/common/rpc-errors.ts';
import { isoDate } from '../../http/dates.ts';
import type { Clients } from '../../http/clients.ts';
import type { Member } from '../../access/members.ts';

export interface ProviderKeyView {
  provider: string;
  lastFour: string;
  createdAt: string;
}

export const KEY_INVALID = 'key must be a string';

const view = (k: ProviderKey | undefined): ProviderKeyView => ({
  provider: k?.provider ?? '',
  lastFour: k?.lastFour ?? '',
  createdAt: isoDate(k?.createdAt) ?? new Date(0).toISOString(),
});

const actor = (m: Member) => ({ userId: m.user.id, workspaceId: m.ownerId, clientIp: m.clientIp });

export async function listProviderKeys(clients: Clients, m: Member): Promise<ProviderKeyView[]> {
  const { keys } = await clients.chat.listProviderKeys({ ownerId: m.ownerId });
  return keys.map(view);
}

export async function setProviderKey(clients: Clients, m: Member, provider: string, key: unknown): Promise<ProviderKeyView> {
  if (typeof key !== 'string') throw invalid(KEY_INVALID);
  const saved = view((await clients.chat.setProviderKey({ ownerId: m.ownerId, provider, key })).key);
  await clients.workspaces.recordAuditEvent({
    actor: actor(m),
    action: 'workspace.provider_key_set',
    target: saved.provider,
    detailsJson: JSON.stringify({ provider: saved.provider, lastFour: saved.lastFour }),
  });
  return saved;
}

/** True when a key was removed; the workspace's chatbots answer on the operator's key and credit at once. */
export async function removeProviderKey(clients: Clients, m: Member, provider: string): Promise<boolean> {
  const before = (await listProviderKeys(clients, m)).find((k) => k.provider === provider);
  const { removed } = await clients.chat.removeProviderKey({ ownerId: m.ownerId, provider });
  if (removed)
    await clients.workspaces.recordAuditEvent({
      actor: actor(m),
      action: 'workspace.provider_key_removed',
      target: provider,
      detailsJson: JSON.stringify({ provider, lastFour: before?.lastFour ?? '' }),
    });
  return removed;
}
