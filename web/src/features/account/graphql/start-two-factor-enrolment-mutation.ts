import { graphql } from '../../../gql';

export const StartTwoFactorEnrolmentMutation = graphql(`
  mutation StartTwoFactorEnrolment {
    startTwoFactorEnrolment {
      otpauthUri
      secret
    }
  }
`);
