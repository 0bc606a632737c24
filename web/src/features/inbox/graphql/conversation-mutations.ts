import { graphql } from '../../../gql';

// What an agent does with a conversation of the inbox.

export const ClaimConversationMutation = graphql(`
  mutation ClaimConversation($id: ID!) {
    claimConversation(id: $id) {
      ...InboxItemFields
    }
  }
`);

export const ReplyToConversationMutation = graphql(`
  mutation ReplyToConversation($id: ID!, $content: String!, $clientMessageId: ID!) {
    replyToConversation(id: $id, content: $content, clientMessageId: $clientMessageId) {
      ...InboxMessageFields
    }
  }
`);

export const AddConversationNoteMutation = graphql(`
  mutation AddConversationNote($id: ID!, $content: String!, $clientMessageId: ID!) {
    addConversationNote(id: $id, content: $content, clientMessageId: $clientMessageId) {
      ...InboxMessageFields
    }
  }
`);

export const HandBackConversationMutation = graphql(`
  mutation HandBackConversation($id: ID!) {
    handBackConversation(id: $id) {
      ...InboxItemFields
    }
  }
`);

export const CloseConversationMutation = graphql(`
  mutation CloseConversation($id: ID!) {
    closeConversation(id: $id) {
      ...InboxItemFields
    }
  }
`);

export const SummarizeConversationMutation = graphql(`
  mutation SummarizeConversation($id: ID!) {
    summarizeConversation(id: $id)
  }
`);
