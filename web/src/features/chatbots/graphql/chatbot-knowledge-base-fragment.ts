import { graphql } from '../../../gql';

// Written into the cache after a knowledge-base mutation, whose answer is the new knowledge base.
export const ChatbotKnowledgeBaseFragment = graphql(`
  fragment ChatbotKnowledgeBase on Chatbot {
    id
    knowledgeBase {
      ...KnowledgeBaseFields
    }
  }
`);
