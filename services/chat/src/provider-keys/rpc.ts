// The ChatService's own provider key methods over ConnectRPC (docs/adr/0043-own-provider-keys.md),
// spread into the service's routes by rpc.ts: map proto messages to the use cases and back. No
// response carries a key.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  ProviderKeySchema,
  type ListProviderKeysRequest,
  type RemoveProviderKeyRequest,
  type SetProviderKeyRequest,
} from '@parley/proto/parley/chat/v1/chat_pb.js';
import { invalid } from '@parley/common/rpc-errors.ts';
import { listProviderKeys, removeProviderKey, setProviderKey, type ProviderKeyDeps, type ProviderKeyView } from './provider-keys.ts';

export interface ProviderKeyRpcDeps {
  providerKeys: ProviderKeyDeps;
}

const toProviderKey = (k: ProviderKeyView) =>
  create(ProviderKeySchema, { provider: k.provider, lastFour: k.lastFour, createdAt: timestampFromDate(k.createdAt) });

const ownerIdOf = (raw: string): string => {
  if (!/^[\w-]{1,64}$/.test(raw)) throw invalid('owner_id is required.');
  return raw;
};

export function providerKeyMethods(deps: ProviderKeyRpcDeps) {
  return {
    async listProviderKeys(req: ListProviderKeysRequest) {
      return { keys: (await listProviderKeys(deps.providerKeys, ownerIdOf(req.ownerId))).map(toProviderKey) };
    },
    async setProviderKey(req: SetProviderKeyRequest) {
      const key = await setProviderKey(deps.providerKeys, { ownerId: ownerIdOf(req.ownerId), provider: req.provider, key: req.key });
      return { key: toProviderKey(key) };
    },
    async removeProviderKey(req: RemoveProviderKeyRequest) {
      return { removed: await removeProviderKey(deps.providerKeys, { ownerId: ownerIdOf(req.ownerId), provider: req.provider }) };
    },
  };
}
