import { graphql } from '../../../gql';

// Which language model answers the chatbot, and the one tried when it fails (docs/product.md, The model).
export const ChatbotModelSettingsFragment = graphql(`
  fragment ChatbotModelSettings on Chatbot {
    id
    model {
      id
      displayName
      provider
    }
    fallbackModel {
      id
      displayName
      provider
    }
  }
`);
