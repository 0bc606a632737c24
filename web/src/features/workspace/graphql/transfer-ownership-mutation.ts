import { graphql } from '../../../gql';

export const TransferOwnershipMutation = graphql(`
  mutation TransferOwnership($userId: ID!) {
    transferOwnership(userId: $userId)
  }
`);
