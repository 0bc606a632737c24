import { graphql } from '../../../gql';

// Answers the whole session user, so the cached `me` and the dashboard greeting change at once.
export const UpdateProfileMutation = graphql(`
  mutation UpdateProfile($name: String!) {
    updateProfile(name: $name) {
      ...SessionUser
    }
  }
`);
