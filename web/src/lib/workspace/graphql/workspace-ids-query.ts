import { graphql } from '../../../gql';

// Asked only when the current workspace is not found without a stored choice: an empty list means the
// person belongs to no workspace.
export const WorkspaceIdsQuery = graphql(`
  query WorkspaceIds {
    workspaces {
      id
    }
  }
`);
