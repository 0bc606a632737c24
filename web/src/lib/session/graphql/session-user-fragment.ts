import { graphql } from '../../../gql';

// The fields of the signed-in user the whole app relies on; login, register and `me` all select it.
export const SessionUserFragment = graphql(`
  fragment SessionUser on User {
    id
    email
    name
    twoFactorEnabled
    subscription
    usage {
      creditBalance
      lastCreditRefill
    }
  }
`);
