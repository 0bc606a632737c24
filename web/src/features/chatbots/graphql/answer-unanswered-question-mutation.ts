import { graphql } from '../../../gql';

export const AnswerUnansweredQuestionMutation = graphql(`
  mutation AnswerUnansweredQuestion($chatbotId: ID!, $id: ID!, $answer: String!, $question: String) {
    answerUnansweredQuestion(chatbotId: $chatbotId, id: $id, answer: $answer, question: $question) {
      ...UnansweredQuestionFields
    }
  }
`);
