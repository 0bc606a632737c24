import { graphql } from '../../../gql';

// The workspaces alone: asked when the current one refuses the person until they turn on two-factor
// sign-in (TWO_FACTOR_REQUIRED), which the list, about the person, does not.
export const WorkspaceListQuery = graphql(`
  query WorkspaceList {
    workspaces {
      ...WorkspaceFields
    }
  }
`);
