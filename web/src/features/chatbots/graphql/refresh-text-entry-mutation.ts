import { graphql } from '../../../gql';

export const RefreshTextEntryMutation = graphql(`
  mutation RefreshTextEntry($chatbotId: ID!, $entryId: ID!) {
    refreshTextEntry(chatbotId: $chatbotId, entryId: $entryId) {
      ...TextEntryResultFields
    }
  }
`);
