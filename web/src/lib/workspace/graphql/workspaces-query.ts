import { graphql } from '../../../gql';

export const WorkspacesQuery = graphql(`
  query Workspaces {
    workspaces {
      ...WorkspaceFields
    }
    currentWorkspace {
      ...WorkspaceFields
    }
  }
`);
