import { graphql } from '../../../gql';

// What a row of the inbox shows, and what the live stream sends for a conversation (the same fields).
export const InboxItemFieldsFragment = graphql(`
  fragment InboxItemFields on InboxItem {
    conversationId
    chatbotId
    status
    agentName
    assigneeId
    waitingSince
    visitorName
    visitorEmail
    lastMessage
    lastMessageAt
    messageCount
    lastVisitorMessage
    verifiedUserId
    channel
    reason
  }
`);
