import { graphql } from '../../../gql';

export const ChangeMemberRoleMutation = graphql(`
  mutation ChangeMemberRole($userId: ID!, $role: WorkspaceRole!) {
    changeMemberRole(userId: $userId, role: $role) {
      userId
      email
      name
      role
      joinedAt
    }
  }
`);
