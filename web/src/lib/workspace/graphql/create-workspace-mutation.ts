import { graphql } from '../../../gql';

export const CreateWorkspaceMutation = graphql(`
  mutation CreateWorkspace($name: String!) {
    createWorkspace(name: $name) {
      ...WorkspaceFields
    }
  }
`);
