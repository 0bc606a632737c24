import { graphql } from '../../../gql';

export const DeleteChatbotMutation = graphql(`
  mutation DeleteChatbot($id: ID!) {
    deleteChatbot(id: $id)
  }
`);
