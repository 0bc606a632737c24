import { graphql } from '../../../gql';

export const DismissUnansweredQuestionMutation = graphql(`
  mutation DismissUnansweredQuestion($chatbotId: ID!, $id: ID!) {
    dismissUnansweredQuestion(chatbotId: $chatbotId, id: $id) {
      ...UnansweredQuestionFields
    }
  }
`);
