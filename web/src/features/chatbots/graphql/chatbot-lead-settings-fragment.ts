import { graphql } from '../../../gql';

// The lead form and handoff to a person (docs/product.md, Leads).
export const ChatbotLeadSettingsFragment = graphql(`
  fragment ChatbotLeadSettings on Chatbot {
    id
    leadForm {
      name
      email
      phone
      trigger
      afterMessages
      consentText
    }
    handoff {
      enabled
      timeoutSeconds
    }
  }
`);
