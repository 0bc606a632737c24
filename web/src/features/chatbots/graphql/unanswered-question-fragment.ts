import { graphql } from '../../../gql';

export const UnansweredQuestionFragment = graphql(`
  fragment UnansweredQuestionFields on UnansweredQuestion {
    id
    question
    count
    examples
    lastSeen
    status
    answerEntryId
    reason
  }
`);
