import { graphql } from '../../../gql';

export const InvitationPreviewQuery = graphql(`
  query InvitationPreview($token: String!) {
    invitation(token: $token) {
      workspaceName
      email
      role
      invitedBy
      expiresAt
    }
  }
`);
