import { useMutation } from '@apollo/client/react';
import type { ApiKeyRollOverlap } from '../../../gql/graphql';
import { useAction } from '../../../lib/use-action';
import { expiryDate, type ApiKey, type KeyDraft } from '../api-keys';
import { ApiKeysQuery } from '../graphql/api-keys-query';
import { CreateApiKeyMutation } from '../graphql/create-api-key-mutation';
import { RevokeApiKeyMutation } from '../graphql/revoke-api-key-mutation';
import { RollApiKeyMutation } from '../graphql/roll-api-key-mutation';

export const CREATE_FAILED_MESSAGE = 'Could not create the key. Please try again.';
export const ROLL_FAILED_MESSAGE = 'Could not roll the key. Please try again.';
export const REVOKE_FAILED_MESSAGE = 'Could not revoke the key. Please try again.';

/** A secret just issued, held in memory only until its reveal is closed. */
export interface IssuedSecret {
  apiKey: ApiKey;
  secret: string;
  /** Created or rolled: the reveal's wording. */
  kind: 'created' | 'rolled';
}

export function useCreateApiKey() {
  const [mutate] = useMutation(CreateApiKeyMutation, { refetchQueries: [ApiKeysQuery] });
  return useAction(async (draft: KeyDraft): Promise<IssuedSecret> => {
    const expiresAt = expiryDate(draft.expiry, new Date());
    const { data } = await mutate({
      variables: {
        input: { name: draft.name.trim(), scopes: draft.scopes, chatbotIds: draft.chatbotIds ?? [], ...(expiresAt ? { expiresAt } : {}) },
      },
    });
    if (!data) throw new Error('empty createApiKey response');
    return { ...data.createApiKey, kind: 'created' };
  }, CREATE_FAILED_MESSAGE);
}

export function useRollApiKey() {
  const [mutate] = useMutation(RollApiKeyMutation, { refetchQueries: [ApiKeysQuery] });
  return useAction(async (id: string, overlap: ApiKeyRollOverlap): Promise<IssuedSecret> => {
    const { data } = await mutate({ variables: { id, overlap } });
    if (!data) throw new Error('empty rollApiKey response');
    return { ...data.rollApiKey, kind: 'rolled' };
  }, ROLL_FAILED_MESSAGE);
}

export function useRevokeApiKey() {
  const [mutate] = useMutation(RevokeApiKeyMutation, { refetchQueries: [ApiKeysQuery] });
  return useAction(async (id: string): Promise<ApiKey> => {
    const { data } = await mutate({ variables: { id } });
    if (!data) throw new Error('empty revokeApiKey response');
    return data.revokeApiKey;
  }, REVOKE_FAILED_MESSAGE);
}
