import { graphql } from '../../../gql';

// What both analytics views draw: the chatbot's Analytics tab and the dashboard's summary.
export const AnalyticsFieldsFragment = graphql(`
  fragment AnalyticsFields on Analytics {
    startDate
    endDate
    full
    totals {
      conversations
      messages
      uniqueVisitors
      answered
      answeredShare
      thumbsUp
      thumbsDown
      medianAnswerMs
    }
    days {
      date
      conversations
      messages
      uniqueVisitors
    }
    busiestHours
    topQuestions {
      question
      count
    }
    questionsRedacted
  }
`);
