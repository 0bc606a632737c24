import { graphql } from '../../../gql';

export const InvitationFieldsFragment = graphql(`
  fragment InvitationFields on WorkspaceInvitation {
    id
    email
    role
    invitedBy
    createdAt
    expiresAt
  }
`);
