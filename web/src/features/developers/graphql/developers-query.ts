import { graphql } from '../../../gql';

/** What the Developers page needs first: the role's permissions and the scopes a key may hold. */
export const DevelopersQuery = graphql(`
  query Developers {
    currentWorkspace {
      id
      name
      permissions
    }
    apiScopes {
      name
      description
    }
  }
`);
