import { graphql } from '../../../gql';

export const ResendInvitationMutation = graphql(`
  mutation ResendInvitation($id: ID!) {
    resendInvitation(id: $id) {
      ...InvitationFields
    }
  }
`);
