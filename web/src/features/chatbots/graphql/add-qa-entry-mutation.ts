import { graphql } from '../../../gql';

export const AddQaEntryMutation = graphql(`
  mutation AddQaEntry($chatbotId: ID!, $question: String!, $answer: String!) {
    addQaEntry(chatbotId: $chatbotId, question: $question, answer: $answer) {
      ...TextEntryResultFields
    }
  }
`);
