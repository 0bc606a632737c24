import { graphql } from '../../../gql';

export const CreateCustomerMutation = graphql(`
  mutation CreateCustomer {
    createCustomer
  }
`);
