import { graphql } from '../../../gql';

export const InviteMemberMutation = graphql(`
  mutation InviteMember($email: String!, $role: WorkspaceRole!) {
    inviteMember(email: $email, role: $role) {
      ...InvitationFields
    }
  }
`);
