import { useQuery } from '@apollo/client/react';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { ModelsQuery } from '../graphql/models-query';
import { LOAD_MODELS_FAILED_MESSAGE } from '../model-settings';

/** The models the workspace may choose from (the default first); the server says which its plan allows. */
export function useModels() {
  const { data, loading, error } = useQuery(ModelsQuery);
  return {
    models: data?.models ?? null,
    loading: loading && !data,
    error: error ? (graphqlErrorMessage(error) ?? LOAD_MODELS_FAILED_MESSAGE) : null,
  };
}
