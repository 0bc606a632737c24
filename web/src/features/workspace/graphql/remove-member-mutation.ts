import { graphql } from '../../../gql';

export const RemoveMemberMutation = graphql(`
  mutation RemoveMember($userId: ID!) {
    removeMember(userId: $userId)
  }
`);
