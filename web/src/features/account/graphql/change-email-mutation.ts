import { graphql } from '../../../gql';

// Answers the whole session user, so the cached `me` and the dashboard change at once.
export const ChangeEmailMutation = graphql(`
  mutation ChangeEmail($input: ChangeEmailInput!) {
    changeEmail(input: $input) {
      ...SessionUser
    }
  }
`);
