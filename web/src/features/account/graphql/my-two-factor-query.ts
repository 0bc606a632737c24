import { graphql } from '../../../gql';

export const MyTwoFactorQuery = graphql(`
  query MyTwoFactor {
    myTwoFactor {
      enabled
      recoveryCodesLeft
    }
  }
`);
