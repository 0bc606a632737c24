import { graphql } from '../../../gql';

// Personal data kept from the model (docs/product.md, Privacy).
export const ChatbotPrivacyFragment = graphql(`
  fragment ChatbotPrivacy on Chatbot {
    id
    privacy {
      redactPersonalData
      keepOriginal
      patterns
    }
  }
`);
