import { graphql } from '../../../gql';

export const CreateBillingPortalSessionMutation = graphql(`
  mutation CreateBillingPortalSession {
    createBillingPortalSession
  }
`);
