import { graphql } from '../../../gql';

export const BillingOptionsQuery = graphql(`
  query BillingOptions {
    billingOptions {
      testMode
      topUpAmount
    }
  }
`);
