import { graphql } from '../../../gql';

export const SetTextEntryAutoSyncMutation = graphql(`
  mutation SetTextEntryAutoSync($chatbotId: ID!, $entryId: ID!, $autoSync: Boolean!) {
    setTextEntryAutoSync(chatbotId: $chatbotId, entryId: $entryId, autoSync: $autoSync) {
      ...TextEntryResultFields
    }
  }
`);
