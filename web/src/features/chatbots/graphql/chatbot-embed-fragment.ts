import { graphql } from '../../../gql';

// What the Embed tab edits: how the widget and public page look, where they may run and what
// visitors may spend.
export const ChatbotEmbedFragment = graphql(`
  fragment ChatbotEmbed on Chatbot {
    id
    uniqueId
    appearance {
      primaryColor
      position
      launcherLabel
      hideBranding
    }
    allowedDomains
    standalonePage
    limits {
      visitorMessagesPerDay
      dailySpendLimit
      proofOfWork
    }
  }
`);
