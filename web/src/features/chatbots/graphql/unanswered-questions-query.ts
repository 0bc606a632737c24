import { graphql } from '../../../gql';

export const UnansweredQuestionsQuery = graphql(`
  query UnansweredQuestions($chatbotId: ID!, $status: String) {
    unansweredQuestions(chatbotId: $chatbotId, status: $status) {
      ...UnansweredQuestionFields
    }
  }
`);
