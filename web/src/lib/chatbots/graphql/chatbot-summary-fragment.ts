import { graphql } from '../../../gql';

// What a chatbot card needs; the list, create and update all select it so the list can be updated
// from any of their answers without a refetch.
export const ChatbotSummaryFragment = graphql(`
  fragment ChatbotSummary on Chatbot {
    id
    uniqueId
    name
    profilePicture
    isActive
    language
    interactions
    lastInteraction
    createdAt
    updatedAt
    openUnansweredQuestions
  }
`);
