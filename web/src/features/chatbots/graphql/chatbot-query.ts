import { graphql } from '../../../gql';

export const ChatbotQuery = graphql(`
  query Chatbot($id: ID!) {
    chatbot(id: $id) {
      ...ChatbotSummary
      ...ChatbotVoice
      ...ChatbotEmbed
      ...ChatbotLeadSettings
      ...ChatbotModelSettings
      ...ChatbotPrivacy
      knowledgeBase {
        ...KnowledgeBaseFields
      }
    }
  }
`);
