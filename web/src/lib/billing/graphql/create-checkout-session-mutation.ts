import { graphql } from '../../../gql';

export const CreateCheckoutSessionMutation = graphql(`
  mutation CreateCheckoutSession($input: CreateCheckoutSessionInput!) {
    createCheckoutSession(input: $input) {
      url
    }
  }
`);
