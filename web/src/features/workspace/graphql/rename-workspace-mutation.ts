import { graphql } from '../../../gql';

export const RenameWorkspaceMutation = graphql(`
  mutation RenameWorkspace($name: String!) {
    renameWorkspace(name: $name) {
      ...WorkspaceFields
    }
  }
`);
