import { graphql } from '../../../gql';

export const InvitationsQuery = graphql(`
  query Invitations {
    invitations {
      ...InvitationFields
    }
  }
`);
